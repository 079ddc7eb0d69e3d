package org.bngpod.app.emu;

import com.google.common.base.Splitter;
import org.bngpod.app.rest.ContainerLogin;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The users of a realm written as Karaf's {@code etc/users.properties}, the
 * file ONOS's web container logs users in against (docs/onos/install.md):
 * {@code NAME = PASSWORD[,ROLE|_g_:GROUP]...} and
 * {@code _g_\:GROUP = group,ROLE...}. Passwords are plain text (as Karaf's
 * file holds them unless encryption is on).
 */
final class KarafUsers {

    private static final String GROUP = "_g_:";

    private KarafUsers() {
    }

    /**
     * Reads a users file.
     *
     * @param file the file
     * @return user name to user, the groups' roles resolved
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException naming the entry at fault
     */
    static Map<String, ContainerLogin.User> read(Path file) throws IOException {
        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(in);
        }
        Map<String, List<String>> groups = new HashMap<>();
        for (String key : props.stringPropertyNames()) {
            if (key.startsWith(GROUP)) {
                List<String> parts = split(props.getProperty(key));
                if (parts.isEmpty() || !parts.get(0).equals("group")) {
                    throw new IllegalArgumentException(file + ": " + key + ": a group is written \"group,ROLE...\"");
                }
                groups.put(key.substring(GROUP.length()), parts.subList(1, parts.size()));
            }
        }
        Map<String, ContainerLogin.User> users = new HashMap<>();
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith(GROUP)) {
                continue;
            }
            List<String> parts = split(props.getProperty(name));
            if (name.isEmpty() || name.contains(":") || parts.isEmpty() || parts.get(0).isEmpty()) {
                throw new IllegalArgumentException(file + ": user \"" + name + "\": write NAME = PASSWORD,ROLE...");
            }
            Set<String> roles = new LinkedHashSet<>();
            for (String r : parts.subList(1, parts.size())) {
                if (r.startsWith(GROUP)) {
                    List<String> of = groups.get(r.substring(GROUP.length()));
                    if (of == null) {
                        throw new IllegalArgumentException(file + ": user \"" + name + "\": unknown group " + r);
                    }
                    roles.addAll(of);
                } else {
                    roles.add(r);
                }
            }
            users.put(name, new ContainerLogin.User(parts.get(0), roles.toArray(new String[0])));
        }
        return users;
    }

    private static List<String> split(String value) {
        List<String> out = new ArrayList<>();
        for (String p : Splitter.on(',').split(value)) {
            if (!p.trim().isEmpty()) {
                out.add(p.trim());
            }
        }
        return out;
    }
}
