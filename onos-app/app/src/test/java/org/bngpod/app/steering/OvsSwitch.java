package org.bngpod.app.steering;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import org.onosproject.driver.pipeline.DefaultSingleTablePipeline;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.flow.FlowRuleServiceAdapter;
import org.onosproject.net.flowobjective.FilteringObjective;
import org.onosproject.net.flowobjective.FlowObjectiveServiceAdapter;
import org.onosproject.net.flowobjective.FlowObjectiveStore;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.flowobjective.NextObjective;
import org.onosproject.net.flowobjective.ObjectiveError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A live Open vSwitch driven as ONOS 2.5.6 drives a switch whose driver is
 * {@code default}: flow objectives go through ONOS's own
 * {@link DefaultSingleTablePipeline}, the flow rules it makes are sent as
 * the OpenFlow 1.3 provider sends them ({@link OvsFlows}: strict, nothing the
 * provider would drop), with {@code ovs-ofctl}. Only the difference goes to
 * the switch: the rules that changed since the last push, each ADD an
 * OFPFC_ADD (a rule already there is replaced, as ONOS's provider does), each
 * REMOVE an OFPFC_DELETE_STRICT, in one {@code add-flows} per batch. An audit
 * compares the switch's table with the rules every few seconds, as ONOS's
 * flow statistics poll does, sends again what is missing and removes what
 * the app no longer has.
 *
 * <p>Threads: {@link #forward} runs on the caller's (the steering manager's)
 * thread and only queues; one writer thread of its own pushes and audits,
 * and answers each objective once its flow-mod went out.</p>
 */
public final class OvsSwitch extends FlowObjectiveServiceAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(OvsSwitch.class);
    /** A batch is pushed once no rule came for this long (the installer sends one objective at a time). */
    private static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(3);
    /** ... or when the oldest waits this long. */
    private static final long MAX_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long AUDIT_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final Pattern COOKIE = Pattern.compile("cookie=(?:0x([0-9a-f]+)|0)[, ]");

    /** Runs ovs-ofctl: its arguments (after {@code -O OpenFlow13}) and standard input; its output. */
    public interface Ofctl {
        /**
         * Runs one ovs-ofctl command.
         *
         * @param stdin what to write to its standard input, or null
         * @param args  its arguments after the OpenFlow version
         * @return its standard output
         * @throws Exception when it cannot run or exits with an error
         */
        String run(String stdin, String... args) throws Exception;
    }

    /** What one push did (for the controller's event log). */
    public static final class Push {
        public final int added;
        public final int removed;
        public final long startMillis;
        public final long tookMillis;
        public final boolean audit;

        Push(int added, int removed, long startMillis, long tookMillis, boolean audit) {
            this.added = added;
            this.removed = removed;
            this.startMillis = startMillis;
            this.tookMillis = tookMillis;
            this.audit = audit;
        }
    }

    private final DeviceId device;
    private final String target;
    private final Ofctl ofctl;
    private final Consumer<Push> pushed;
    private final DefaultSingleTablePipeline pipeliner = new DefaultSingleTablePipeline();

    /** The rules as ONOS would hold them, by flow id (writer and callers, under this lock). */
    private final Object lock = new Object();
    private final Map<FlowId, FlowRule> table = new HashMap<>();
    /** What changed since the last push: a rule to add, or null to remove; with who waits for it. */
    private final Map<FlowId, Pending> pending = new LinkedHashMap<>();
    private long firstPending;
    private long lastPending;
    private boolean stopped;

    private final AtomicLong flowMods = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong repaired = new AtomicLong();
    private final Thread writer;

    private static final class Pending {
        final FlowRule rule;
        final boolean add;
        final List<FlowRuleOperations> waiting = new ArrayList<>();

        Pending(FlowRule rule, boolean add) {
            this.rule = rule;
            this.add = add;
        }
    }

    /**
     * Starts driving a switch.
     *
     * @param device the switch's device id
     * @param target ovs-ofctl's name of the switch (e.g. unix:/run/bngpod/ovs/bpsw.mgmt)
     * @param ofctl  runs ovs-ofctl
     * @param pushed told of every push
     */
    public OvsSwitch(DeviceId device, String target, Ofctl ofctl, Consumer<Push> pushed) {
        this.device = device;
        this.target = target;
        this.ofctl = ofctl;
        this.pushed = pushed;
        // the pipeliner takes the objective store at init; only next objectives use it
        FlowObjectiveStore store = (FlowObjectiveStore) Proxy.newProxyInstance(
                FlowObjectiveStore.class.getClassLoader(), new Class<?>[] {FlowObjectiveStore.class},
                (proxy, method, args) -> {
                    throw new UnsupportedOperationException("the steering uses no next objectives: "
                                                                    + method.getName());
                });
        SwitchServices.init(pipeliner, device, store, Map.of(FlowRuleService.class, new Rules(),
                                                            FlowObjectiveStore.class, store));
        writer = new Thread(this::write, "ovs-writer");
        writer.setDaemon(true);
        writer.start();
    }

    @Override
    public void forward(DeviceId deviceId, ForwardingObjective objective) {
        if (!device.equals(deviceId)) {
            LOG.error("objective for {}: this controller drives {} only", deviceId, device);
            objective.context().ifPresent(c -> c.onError(objective, ObjectiveError.DEVICEMISSING));
            return;
        }
        pipeliner.forward(objective);
    }

    @Override
    public void filter(DeviceId deviceId, FilteringObjective objective) {
        objective.context().ifPresent(c -> c.onError(objective, ObjectiveError.UNSUPPORTED));
    }

    @Override
    public void next(DeviceId deviceId, NextObjective objective) {
        objective.context().ifPresent(c -> c.onError(objective, ObjectiveError.UNSUPPORTED));
    }

    /**
     * Returns the flow-mods sent, failed pushes and repairs of the audit.
     *
     * @return counters: flowMods, failures, repaired
     */
    public Map<String, Long> counters() {
        return Map.of("flowMods", flowMods.get(), "failures", failures.get(), "repaired", repaired.get());
    }

    /**
     * Returns how many rules ONOS would hold for the switch.
     *
     * @return rules
     */
    public int rules() {
        synchronized (lock) {
            return table.size();
        }
    }

    /** Stops the writer; what the switch has stays (as when ONOS stops). */
    public void stop() {
        synchronized (lock) {
            stopped = true;
            lock.notifyAll();
        }
        try {
            writer.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The flow rule service the pipeliner writes to: queues the change for the writer. */
    private final class Rules extends FlowRuleServiceAdapter {
        @Override
        public void apply(FlowRuleOperations ops) {
            synchronized (lock) {
                long now = System.nanoTime();
                for (Set<FlowRuleOperation> stage : ops.stages()) {
                    for (FlowRuleOperation op : stage) {
                        boolean add = op.type() != FlowRuleOperation.Type.REMOVE;
                        FlowId id = op.rule().id();
                        Pending p = new Pending(op.rule(), add);
                        Pending before = pending.remove(id);
                        if (before != null) {
                            p.waiting.addAll(before.waiting);
                        }
                        pending.put(id, p);
                        if (add) {
                            table.put(id, op.rule());
                        } else {
                            table.remove(id);
                        }
                    }
                }
                // answered once the last of its rules went out
                Pending last = null;
                for (Set<FlowRuleOperation> stage : ops.stages()) {
                    for (FlowRuleOperation op : stage) {
                        last = pending.get(op.rule().id());
                    }
                }
                if (last != null) {
                    last.waiting.add(ops);
                } else if (ops.callback() != null) {
                    ops.callback().onSuccess(ops);
                }
                if (firstPending == 0) {
                    firstPending = now;
                }
                lastPending = now;
                lock.notifyAll();
            }
        }
    }

    private void write() {
        long nextAudit = System.nanoTime() + AUDIT_NANOS;
        while (true) {
            List<Pending> batch;
            synchronized (lock) {
                try {
                    while (!stopped) {
                        long now = System.nanoTime();
                        if (!pending.isEmpty() && (now - lastPending >= QUIET_NANOS
                                || now - firstPending >= MAX_DELAY_NANOS)) {
                            break;
                        }
                        if (pending.isEmpty() && now >= nextAudit) {
                            break;
                        }
                        long until = pending.isEmpty() ? nextAudit - now
                                : Math.min(lastPending + QUIET_NANOS, firstPending + MAX_DELAY_NANOS) - now;
                        TimeUnit.NANOSECONDS.timedWait(lock, Math.max(until, 100_000));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (stopped) {
                    return;
                }
                batch = ImmutableList.copyOf(pending.values());
                pending.clear();
                firstPending = 0;
            }
            if (batch.isEmpty()) {
                audit();
                nextAudit = System.nanoTime() + AUDIT_NANOS;
            } else {
                push(batch);
            }
        }
    }

    private void push(List<Pending> batch) {
        StringBuilder mods = new StringBuilder();
        int added = 0;
        int removed = 0;
        List<FlowRuleOperations> failed = new ArrayList<>();
        for (Pending p : batch) {
            try {
                if (p.add) {
                    mods.append("add ").append(OvsFlows.flow(p.rule)).append('\n');
                    added++;
                } else {
                    mods.append("delete_strict ").append(OvsFlows.entry(p.rule)).append('\n');
                    removed++;
                }
            } catch (OvsFlows.UntranslatableRuleException e) {
                // what ONOS's provider would send wrong is not sent at all, and the objective fails
                LOG.error("not sent to {}: {}", device, e.getMessage());
                failures.incrementAndGet();
                failed.addAll(p.waiting);
                p.waiting.clear();
            }
        }
        long start = System.currentTimeMillis();
        boolean ok = true;
        if (added + removed > 0) {
            try {
                ofctl.run(mods.toString(), "add-flows", target, "-");
                flowMods.addAndGet(added + removed);
            } catch (Exception e) {
                ok = false;
                failures.incrementAndGet();
                LOG.error("ovs-ofctl add-flows {} failed ({} flow-mods): {}", target, added + removed,
                          e.getMessage());
            }
        }
        for (Pending p : batch) {
            for (FlowRuleOperations ops : p.waiting) {
                if (ops.callback() != null) {
                    if (ok) {
                        ops.callback().onSuccess(ops);
                    } else {
                        ops.callback().onError(ops);
                    }
                }
            }
        }
        failed.forEach(ops -> {
            if (ops.callback() != null) {
                ops.callback().onError(ops);
            }
        });
        pushed.accept(new Push(added, removed, start, System.currentTimeMillis() - start, false));
    }

    /**
     * Compares the switch's table with the rules (by cookie, the flow id) and
     * repairs the difference: a rule missing is sent again, an entry of a
     * rule that is gone is deleted. The next audit catches a failed repair.
     */
    private void audit() {
        String dump;
        try {
            dump = ofctl.run(null, "dump-flows", target, "--no-stats");
        } catch (Exception e) {
            LOG.warn("ovs-ofctl dump-flows {} failed: {}", target, e.getMessage());
            return;
        }
        Map<Long, String> onSwitch = new HashMap<>();
        for (String line : Splitter.on('\n').split(dump)) {
            Matcher m = COOKIE.matcher(line);
            if (m.find()) {
                onSwitch.put(m.group(1) == null ? 0L : Long.parseUnsignedLong(m.group(1), 16), line.trim());
            }
        }
        StringBuilder mods = new StringBuilder();
        int added = 0;
        int removed = 0;
        synchronized (lock) {
            if (!pending.isEmpty()) {
                return; // a push is due: audit the table it leaves
            }
            for (FlowRule rule : table.values()) {
                if (onSwitch.remove(rule.id().value()) == null) {
                    mods.append("add ").append(OvsFlows.flow(rule)).append('\n');
                    added++;
                }
            }
        }
        for (Long cookie : onSwitch.keySet()) {
            // an entry of no rule (a rule removed while the switch was away): ONOS removes
            // extraneous entries; by its cookie, whatever its match
            mods.append(String.format("delete cookie=0x%x/-1%n", cookie));
            removed++;
        }
        if (added + removed == 0) {
            return;
        }
        long start = System.currentTimeMillis();
        try {
            ofctl.run(mods.toString(), "add-flows", target, "-");
            repaired.addAndGet(added + removed);
            LOG.warn("audit of {}: {} rules missing on the switch sent again, {} stale entries deleted", device,
                     added, removed);
        } catch (Exception e) {
            failures.incrementAndGet();
            LOG.error("audit of {}: repair failed: {}", device, e.getMessage());
        }
        pushed.accept(new Push(added, removed, start, System.currentTimeMillis() - start, true));
    }
}
