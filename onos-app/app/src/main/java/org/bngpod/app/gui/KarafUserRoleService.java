package org.bngpod.app.gui;

import com.google.common.collect.ImmutableSet;
import org.apache.karaf.jaas.boot.principal.RolePrincipal;
import org.apache.karaf.jaas.boot.principal.UserPrincipal;
import org.apache.karaf.jaas.config.JaasRealm;
import org.apache.karaf.jaas.modules.BackingEngine;
import org.apache.karaf.jaas.modules.BackingEngineFactory;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.security.auth.login.AppConfigurationEntry;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Roles from Karaf's JAAS realm {@value #REALM}, the realm ONOS's web
 * container logs GUI and REST users into: for each login module of the
 * realm (by default Karaf's {@code PropertiesLoginModule}, etc/users.properties,
 * and the public-key module) the module's backing engine looks the user up
 * and lists its roles, those of its groups included. The roles are the union
 * over the modules that know the user, as a login through the realm collects
 * them. Each call reads the realm afresh (users.properties is re-read at each
 * login too), so a role granted or taken takes effect at the next request.
 */
@Component(immediate = true, service = UserRoleService.class)
public class KarafUserRoleService implements UserRoleService {

    /** ONOS's web realm (web.xml's realm-name of ONOS's REST, GUI and this app). */
    static final String REALM = "karaf";

    private final Logger log = LoggerFactory.getLogger(getClass());

    private final List<JaasRealm> realms = new CopyOnWriteArrayList<>();
    private final List<BackingEngineFactory> engines = new CopyOnWriteArrayList<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    protected void addRealm(JaasRealm realm) {
        realms.add(realm);
    }

    protected void removeRealm(JaasRealm realm) {
        realms.remove(realm);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    protected void addEngineFactory(BackingEngineFactory factory) {
        engines.add(factory);
    }

    protected void removeEngineFactory(BackingEngineFactory factory) {
        engines.remove(factory);
    }

    @Override
    public Set<String> roles(String user) {
        if (user == null || user.isEmpty()) {
            return Set.of();
        }
        // Karaf picks the realm of a name with the highest rank: so do we
        JaasRealm realm = realms.stream().filter(r -> REALM.equals(r.getName()))
                .max(Comparator.comparingInt(JaasRealm::getRank)).orElse(null);
        if (realm == null) {
            log.warn("bngpod: no JAAS realm {} to look up the roles of GUI user {}", REALM, user);
            return Set.of();
        }
        ImmutableSet.Builder<String> roles = ImmutableSet.builder();
        for (AppConfigurationEntry entry : realm.getEntries()) {
            BackingEngine engine = engineOf(entry);
            if (engine == null) {
                continue;
            }
            UserPrincipal principal = engine.lookupUser(user);
            if (principal != null) {
                for (RolePrincipal role : engine.listRoles(principal)) {
                    roles.add(role.getName());
                }
            }
        }
        return roles.build();
    }

    private BackingEngine engineOf(AppConfigurationEntry entry) {
        for (BackingEngineFactory factory : engines) {
            if (factory.getModuleClass().equals(entry.getLoginModuleName())) {
                return factory.build(entry.getOptions());
            }
        }
        log.debug("bngpod: no backing engine for login module {}", entry.getLoginModuleName());
        return null;
    }
}
