package org.bngpod.seba.rest;

import org.onlab.rest.AbstractWebApplication;

import java.util.Set;

/**
 * The adapter's REST API under /onos/bngpod-seba (src/main/webapp/WEB-INF/web.xml).
 */
public class SebaWebApplication extends AbstractWebApplication {

    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(SubscribersWebResource.class, TeardownsWebResource.class, PppoeEventsWebResource.class);
    }
}
