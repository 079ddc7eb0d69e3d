package org.bngpod.app.rest;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The roles that may call a resource method ({@link RoleFilter} checks it);
 * a method without it is refused to everyone.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
@interface Allowed {

    /**
     * Returns the roles, any one of which lets a user call the method.
     *
     * @return role names ({@link Roles})
     */
    String[] value();
}
