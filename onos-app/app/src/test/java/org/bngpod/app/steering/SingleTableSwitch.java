package org.bngpod.app.steering;

import org.onosproject.driver.pipeline.DefaultSingleTablePipeline;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.flowobjective.FilteringObjective;
import org.onosproject.net.flowobjective.FlowObjectiveServiceAdapter;
import org.onosproject.net.flowobjective.FlowObjectiveStore;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.flowobjective.NextObjective;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One switch as ONOS drives it through {@link DefaultSingleTablePipeline} (ONOS's
 * own single-table pipeliner, onos-drivers-default): a flow objective service
 * that hands every objective to the pipeliner, and the flow rule service the
 * pipeliner writes to, holding the switch's table as ONOS would (an added rule
 * replaces the rule with the same flow id, a removal deletes it).
 */
final class SingleTableSwitch extends FlowObjectiveServiceAdapter {

    private final DeviceId device;
    private final DefaultSingleTablePipeline pipeliner = new DefaultSingleTablePipeline();
    private final Map<FlowId, FlowRule> table = new LinkedHashMap<>();
    private final List<String> failures = new ArrayList<>();

    SingleTableSwitch(DeviceId device) {
        this.device = device;
        // The pipeliner takes the objective store at init; only next objectives use it.
        FlowObjectiveStore store = (FlowObjectiveStore) Proxy.newProxyInstance(
                FlowObjectiveStore.class.getClassLoader(), new Class<?>[] {FlowObjectiveStore.class},
                (proxy, method, args) -> {
                    throw new UnsupportedOperationException("the steering uses no next objectives: "
                                                                    + method.getName());
                });
        SwitchServices.init(pipeliner, device, store, Map.of(
                FlowRuleService.class, SwitchServices.flowRules(table),
                FlowObjectiveStore.class, store));
    }

    @Override
    public void forward(DeviceId deviceId, ForwardingObjective objective) {
        if (!device.equals(deviceId)) {
            throw new AssertionError("objective for " + deviceId + " sent to " + device);
        }
        try {
            pipeliner.forward(objective);
        } catch (RuntimeException e) {
            failures.add(objective + ": " + e);
            objective.context().ifPresent(c -> c.onError(objective,
                    org.onosproject.net.flowobjective.ObjectiveError.UNSUPPORTED));
        }
    }

    @Override
    public void filter(DeviceId deviceId, FilteringObjective objective) {
        throw new AssertionError("the steering uses no filtering objectives");
    }

    @Override
    public void next(DeviceId deviceId, NextObjective objective) {
        throw new AssertionError("the steering uses no next objectives");
    }

    /** The switch's flow table: what ONOS would have written to it. */
    List<FlowRule> table() {
        return new ArrayList<>(table.values());
    }

    /** Objectives the pipeliner refused. */
    List<String> failures() {
        return failures;
    }
}
