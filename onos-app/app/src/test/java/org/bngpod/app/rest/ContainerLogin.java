package org.bngpod.app.rest;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

import javax.ws.rs.client.ClientRequestFilter;
import javax.ws.rs.container.ContainerRequestContext;
import javax.ws.rs.container.ContainerRequestFilter;
import javax.ws.rs.container.PreMatching;
import javax.ws.rs.core.HttpHeaders;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.SecurityContext;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.Principal;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What ONOS's web container does before the application sees a request, for
 * Jersey in the tests (which runs without a servlet container): HTTP Basic
 * against a table of users and roles, as Karaf's users.properties gives them,
 * then the auth-constraint of the application's own web.xml: 401 without
 * valid credentials, 403 for a user with none of the roles web.xml lists.
 * A request that passes carries the user's roles in its SecurityContext, as
 * Jersey's servlet container takes them from the servlet request.
 */
@PreMatching
public final class ContainerLogin implements ContainerRequestFilter {

    /** The application's web.xml (tests run in the module's directory). */
    static final Path WEB_XML = Paths.get("src/main/webapp/WEB-INF/web.xml");

    /** A user of the realm: password and roles. */
    public static final class User {
        final byte[] password;
        final Set<String> roles;

        /**
         * Creates a user.
         *
         * @param password its password
         * @param roles    its roles
         */
        public User(String password, String... roles) {
            this.password = password.getBytes(StandardCharsets.UTF_8);
            this.roles = Set.of(roles);
        }

        /** Whether the password given is this user's, in time that does not depend on where they differ. */
        boolean accepts(String given) {
            return MessageDigest.isEqual(password, given.getBytes(StandardCharsets.UTF_8));
        }
    }

    private final Map<String, User> users;
    private final Set<String> constraintRoles;

    /** The tests' realm ({@link #USERS}) and the application's own web.xml. */
    public ContainerLogin() {
        this(USERS, Constraint.ROLES);
    }

    /**
     * A login against a realm of users, letting in those with a role of the
     * constraint (web.xml's auth-constraint, {@link #webXmlRoles(Path, String)}).
     *
     * @param users           the realm: user name to user
     * @param constraintRoles the roles web.xml lets in
     */
    public ContainerLogin(Map<String, User> users, Set<String> constraintRoles) {
        this.users = Map.copyOf(users);
        this.constraintRoles = Set.copyOf(constraintRoles);
    }

    /** The realm's users: ONOS's default admin and guest, a control plane, one with every role, one with none. */
    static final Map<String, User> USERS = Map.of(
            // ONOS's _g_:admingroup and _g_:guestgroup
            "onos", new User("rocks", "admin", "manager", "viewer", "webconsole"),
            "guest", new User("guest", "viewer"),
            "cp1", new User("cp1-secret", Roles.CP),
            "lab", new User("lab", Roles.ADMIN, Roles.VIEWER, Roles.CP),
            "karaf-only", new User("k", "manager", "ssh"));

    /** web.xml's constraint, read when the tests' login is first made (the controller passes its own). */
    private static final class Constraint {
        static final Set<String> ROLES = webXmlRoles(WEB_XML, "security-constraint");
    }

    /**
     * Returns the value of an Authorization header for a user of {@link #USERS}.
     *
     * @param user user name
     * @return "Basic ..."
     */
    static String basic(String user) {
        return basic(user, new String(USERS.get(user).password, StandardCharsets.UTF_8));
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                                                                     .getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Returns a client filter that sends every request as a user.
     *
     * @param user user name of {@link #USERS}
     * @return the filter, for the test client's configuration
     */
    static ClientRequestFilter as(String user) {
        String authorization = basic(user);
        return request -> request.getHeaders().putSingle(HttpHeaders.AUTHORIZATION, authorization);
    }

    @Override
    public void filter(ContainerRequestContext request) {
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        String name = null;
        User user = null;
        if (header != null && header.startsWith("Basic ")) {
            String pair;
            try {
                pair = new String(Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                pair = "";  // not Base64: no such user, 401 below
            }
            int colon = pair.indexOf(':');
            name = colon < 0 ? pair : pair.substring(0, colon);
            User u = users.get(name);
            if (u != null && colon >= 0 && u.accepts(pair.substring(colon + 1))) {
                user = u;
            }
        }
        if (user == null) {
            request.abortWith(Response.status(Response.Status.UNAUTHORIZED)
                                      .header(HttpHeaders.WWW_AUTHENTICATE, "Basic realm=\"karaf\"").build());
            return;
        }
        if (user.roles.stream().noneMatch(constraintRoles::contains)) {
            request.abortWith(Response.status(Response.Status.FORBIDDEN).build());
            return;
        }
        String principal = name;
        Set<String> roles = user.roles;
        request.setSecurityContext(new SecurityContext() {
            @Override
            public Principal getUserPrincipal() {
                return () -> principal;
            }

            @Override
            public boolean isUserInRole(String role) {
                return roles.contains(role);
            }

            @Override
            public boolean isSecure() {
                return false;
            }

            @Override
            public String getAuthenticationScheme() {
                return SecurityContext.BASIC_AUTH;
            }
        });
    }

    /**
     * Returns the role names web.xml lists inside the given elements
     * ("security-constraint": who the container lets in; "security-role":
     * the roles it declares).
     *
     * @param element element name
     * @return role names
     */
    static Set<String> webXmlRoles(String element) {
        return webXmlRoles(WEB_XML, element);
    }

    /**
     * Returns the role names a web.xml lists inside the given elements.
     *
     * @param webXml  the web.xml
     * @param element element name
     * @return role names
     */
    public static Set<String> webXmlRoles(Path webXml, String element) {
        Document xml = webXml(webXml);
        Set<String> roles = new HashSet<>();
        NodeList found = xml.getElementsByTagName(element);
        for (int i = 0; i < found.getLength(); i++) {
            NodeList names = ((Element) found.item(i)).getElementsByTagName("role-name");
            for (int j = 0; j < names.getLength(); j++) {
                roles.add(names.item(j).getTextContent().trim());
            }
        }
        return roles;
    }

    /**
     * Returns the text of every element of a name in web.xml.
     *
     * @param element element name
     * @return the texts, in document order
     */
    static List<String> webXmlTexts(String element) {
        NodeList found = webXml(WEB_XML).getElementsByTagName(element);
        String[] texts = new String[found.getLength()];
        for (int i = 0; i < texts.length; i++) {
            texts[i] = found.item(i).getTextContent().trim();
        }
        return List.of(texts);
    }

    private static Document webXml(Path file) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return factory.newDocumentBuilder().parse(file.toFile());
        } catch (ParserConfigurationException | SAXException | IOException e) {
            throw new IllegalStateException("cannot read " + file.toAbsolutePath(), e);
        }
    }
}
