package org.bngpod.app.gui;

import org.apache.karaf.jaas.config.JaasRealm;
import org.apache.karaf.jaas.modules.properties.PropertiesBackingEngineFactory;
import org.apache.karaf.jaas.modules.properties.PropertiesLoginModule;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import javax.security.auth.login.AppConfigurationEntry;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import java.util.Set;

import static org.junit.Assert.assertEquals;

/**
 * The GUI's roles come from Karaf's realm as a login there would give them:
 * Karaf's own properties backing engine reads a users.properties written as
 * docs/onos/install.md tells operators to, roles of groups included.
 */
public class KarafUserRoleServiceTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private final KarafUserRoleService service = new KarafUserRoleService();
    private File users;

    /** A realm of one login module, with its options. */
    private static JaasRealm realm(String name, int rank, String module, Map<String, ?> options) {
        return new JaasRealm() {
            @Override
            public String getName() {
                return name;
            }

            @Override
            public int getRank() {
                return rank;
            }

            @Override
            public AppConfigurationEntry[] getEntries() {
                return new AppConfigurationEntry[]{new AppConfigurationEntry(
                        module, AppConfigurationEntry.LoginModuleControlFlag.SUFFICIENT, options)};
            }
        };
    }

    @Before
    public void setUp() throws IOException {
        users = tmp.newFile("users.properties");
        write("onos = rocks,_g_:admingroup",
              "_g_\\:admingroup = group,admin,manager,viewer,systembundles,ssh",
              "noc = NOC-PASSWORD,_g_:guestgroup",
              "_g_\\:guestgroup = group,viewer",
              "bngcp = CP-PASSWORD,_g_:bngpodcpgroup",
              "_g_\\:bngpodcpgroup = group,bngpod-cp");
        service.addEngineFactory(new PropertiesBackingEngineFactory());
        service.addRealm(realm(KarafUserRoleService.REALM, 0, PropertiesLoginModule.class.getName(),
                               Map.of("users", users.getPath())));
    }

    private void write(String... lines) throws IOException {
        Files.write(users.toPath(), String.join("\n", lines).concat("\n").getBytes(StandardCharsets.UTF_8));
    }

    @Test
    public void rolesOfTheUsersAndTheirGroups() {
        // a group's first word marks it as a group: it is no role
        assertEquals(Set.of("admin", "manager", "viewer", "systembundles", "ssh"), service.roles("onos"));
        assertEquals(Set.of("viewer"), service.roles("noc"));
        assertEquals(Set.of("bngpod-cp"), service.roles("bngcp"));
        assertEquals(Set.of(), service.roles("nobody"));
        assertEquals(Set.of(), service.roles(""));
        assertEquals(Set.of(), service.roles(null));
    }

    /** A role granted in users.properties counts at the next lookup, as at Karaf's next login. */
    @Test
    public void changesCountAtOnce() throws IOException {
        assertEquals(Set.of("viewer"), service.roles("noc"));
        write("noc = NOC-PASSWORD,admin");
        assertEquals(Set.of("admin"), service.roles("noc"));
    }

    /** Only the realm ONOS's web container logs into, and of several by that name the highest rank. */
    @Test
    public void theKarafRealmOfTheHighestRank() throws IOException {
        File other = tmp.newFile("other.properties");
        Files.write(other.toPath(), "noc = x,admin\n".getBytes(StandardCharsets.UTF_8));
        service.addRealm(realm("elsewhere", 100, PropertiesLoginModule.class.getName(),
                               Map.of("users", other.getPath())));
        assertEquals(Set.of("viewer"), service.roles("noc"));
        service.addRealm(realm(KarafUserRoleService.REALM, 1, PropertiesLoginModule.class.getName(),
                               Map.of("users", other.getPath())));
        assertEquals(Set.of("admin"), service.roles("noc"));
    }

    /** No realm, or a login module without a backing engine: no roles, so nothing is allowed. */
    @Test
    public void nothingToAskGivesNoRoles() {
        KarafUserRoleService bare = new KarafUserRoleService();
        assertEquals(Set.of(), bare.roles("onos"));
        bare.addRealm(realm(KarafUserRoleService.REALM, 0, "com.example.UnknownLoginModule", Map.of()));
        bare.addEngineFactory(new PropertiesBackingEngineFactory());
        assertEquals(Set.of(), bare.roles("onos"));
    }
}
