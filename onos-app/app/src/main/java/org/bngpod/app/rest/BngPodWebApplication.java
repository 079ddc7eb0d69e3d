package org.bngpod.app.rest;

import com.google.common.collect.ImmutableSet;
import org.onlab.rest.AbstractWebApplication;
import org.onlab.rest.JsonBodyWriter;

import java.util.Set;

/**
 * The bngpod REST API under /onos/bngpod (see src/main/webapp/WEB-INF/web.xml).
 * Its own error mappers instead of ONOS's, so every error reads {"error": ...},
 * and its own {@link RoleFilter} instead of ONOS's AuthorizationFilter.
 */
public class BngPodWebApplication extends AbstractWebApplication {

    @Override
    public Set<Class<?>> getClasses() {
        return ImmutableSet.of(NorthboundWebResource.class, InstancesWebResource.class, SessionsWebResource.class,
                               RoleFilter.class, ErrorMappers.WebErrors.class, ErrorMappers.RuntimeErrors.class,
                               JsonBodyWriter.class);
    }
}
