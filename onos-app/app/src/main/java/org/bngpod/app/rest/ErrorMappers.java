package org.bngpod.app.rest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.ws.rs.WebApplicationException;
import javax.ws.rs.core.Response;
import javax.ws.rs.ext.ExceptionMapper;
import javax.ws.rs.ext.Provider;

/**
 * Every error the bngpod API answers has the shape {"error": "..."}.
 */
final class ErrorMappers {

    private ErrorMappers() {
    }

    /** Jersey's own errors (unknown path, wrong method, ...) and the resources' own. */
    @Provider
    public static final class WebErrors implements ExceptionMapper<WebApplicationException> {
        @Override
        public Response toResponse(WebApplicationException e) {
            Response r = e.getResponse();
            if (r != null && r.hasEntity()) {
                return r;
            }
            int status = r == null ? 500 : r.getStatus();
            String text = r == null || r.getStatusInfo() == null ? "error" : r.getStatusInfo().getReasonPhrase();
            return RestSupport.error(status, text.toLowerCase(java.util.Locale.ROOT));
        }
    }

    /** Service exceptions: bad argument 400, wrong state 409, anything else 500 (logged). */
    @Provider
    public static final class RuntimeErrors implements ExceptionMapper<RuntimeException> {
        private final Logger log = LoggerFactory.getLogger(getClass());

        @Override
        public Response toResponse(RuntimeException e) {
            if (e instanceof IllegalArgumentException) {
                return RestSupport.error(Response.Status.BAD_REQUEST, String.valueOf(e.getMessage()));
            }
            if (e instanceof IllegalStateException) {
                return RestSupport.error(Response.Status.CONFLICT, String.valueOf(e.getMessage()));
            }
            log.error("bngpod REST: unexpected error", e);
            return RestSupport.error(Response.Status.INTERNAL_SERVER_ERROR, "internal error: " + e);
        }
    }
}
