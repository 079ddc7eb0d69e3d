package org.bngpod.app.rest;

import org.bngpod.app.impl.Testbed;
import org.glassfish.jersey.client.ClientConfig;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.After;
import org.junit.Before;
import org.onosproject.rest.resources.ResourceTest;

/**
 * onos-rest's ResourceTest (the app's resources in Jersey on Jetty, with the
 * web container's login) over a {@link Testbed} of the real managers, a new
 * one per test; every request as one user of {@link ContainerLogin}.
 */
public abstract class TestbedResourceTest extends ResourceTest {

    /** The managers behind the REST API of the current test. */
    protected Testbed bed;
    private final String user;

    /**
     * @param user the user every request goes as (ContainerLogin's users)
     */
    protected TestbedResourceTest(String user) {
        super(ResourceConfig.forApplicationClass(BngPodWebApplication.class).register(ContainerLogin.class));
        this.user = user;
    }

    @Override
    protected void configureClient(ClientConfig config) {
        config.register(ContainerLogin.as(user));
    }

    /** The testbed of a test: the fixture pod unless overridden. */
    protected Testbed newTestbed() throws Exception {
        return new Testbed(Testbed.fixturePod());
    }

    @Before
    public void setUpServices() throws Exception {
        bed = newTestbed();
        setServiceDirectory(bed.webServices());
    }

    @After
    public void tearDownServices() {
        bed.close();
    }
}
