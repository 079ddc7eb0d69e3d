package org.bngpod.app.steering;

import org.onlab.osgi.ServiceDirectory;
import org.onosproject.net.DeviceId;
import org.onosproject.net.behaviour.Pipeliner;
import org.onosproject.net.behaviour.PipelinerContext;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.flow.FlowRuleServiceAdapter;
import org.onosproject.net.flowobjective.FlowObjectiveStore;

import java.util.Map;
import java.util.Set;

/**
 * What the test switches ({@link OfdpaSwitch}, {@link SingleTableSwitch})
 * give the ONOS pipeliner they drive: a flow rule service writing to the
 * switch's table, and the pipeliner's context with the services it asks for.
 */
final class SwitchServices {

    private SwitchServices() {
    }

    /**
     * Returns a flow rule service holding the switch's table as ONOS would: an
     * added or modified rule replaces the rule with the same flow id, a
     * removal deletes it; every batch is answered as done.
     *
     * @param table the switch's table, by flow id
     * @return the service
     */
    static FlowRuleService flowRules(Map<FlowId, FlowRule> table) {
        return new FlowRuleServiceAdapter() {
            @Override
            public void apply(FlowRuleOperations ops) {
                for (Set<FlowRuleOperation> stage : ops.stages()) {
                    for (FlowRuleOperation op : stage) {
                        switch (op.type()) {
                            case ADD:
                            case MODIFY:
                                table.put(op.rule().id(), op.rule());
                                break;
                            case REMOVE:
                                table.remove(op.rule().id());
                                break;
                            default:
                                throw new AssertionError("unknown flow rule operation " + op.type());
                        }
                    }
                }
                if (ops.callback() != null) {
                    ops.callback().onSuccess(ops);
                }
            }
        };
    }

    /**
     * Initialises the pipeliner for device with a directory of services (any
     * other service asked for fails the test) and the objective store.
     *
     * @param pipeliner the pipeliner
     * @param device    the switch
     * @param store     the flow objective store
     * @param services  the services by the class the pipeliner asks for
     */
    static void init(Pipeliner pipeliner, DeviceId device, FlowObjectiveStore store, Map<Class<?>, Object> services) {
        ServiceDirectory directory = new ServiceDirectory() {
            @Override
            public <T> T get(Class<T> serviceClass) {
                Object service = services.get(serviceClass);
                if (service == null) {
                    throw new UnsupportedOperationException("no " + serviceClass.getName() + " in this test");
                }
                return serviceClass.cast(service);
            }
        };
        pipeliner.init(device, new PipelinerContext() {
            @Override
            public ServiceDirectory directory() {
                return directory;
            }

            @Override
            public FlowObjectiveStore store() {
                return store;
            }
        });
    }
}
