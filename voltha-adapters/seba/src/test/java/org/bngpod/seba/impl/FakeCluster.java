package org.bngpod.seba.impl;

import org.onlab.packet.IpAddress;
import org.onosproject.cluster.ClusterServiceAdapter;
import org.onosproject.cluster.ControllerNode;
import org.onosproject.cluster.DefaultControllerNode;
import org.onosproject.cluster.LeadershipServiceAdapter;
import org.onosproject.cluster.NodeId;

/** One cluster node, and a leadership whose leader a test chooses. */
final class FakeCluster {

    static final NodeId LOCAL = NodeId.nodeId("node1");
    static final NodeId OTHER = NodeId.nodeId("node2");

    private FakeCluster() {
    }

    static final class Cluster extends ClusterServiceAdapter {
        @Override
        public ControllerNode getLocalNode() {
            return new DefaultControllerNode(LOCAL, IpAddress.valueOf("127.0.0.1"));
        }
    }

    static final class Leadership extends LeadershipServiceAdapter {
        volatile NodeId leader = LOCAL;

        @Override
        public NodeId getLeader(String path) {
            return leader;
        }
    }
}
