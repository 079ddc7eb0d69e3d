/**
 * The application's network configuration: {@link org.bngpod.app.config.BngPodConfig},
 * the {@code pod} config of the application {@code org.bngpod.app}, read into the
 * {@link org.bngpod.api.Pod} model.
 */
package org.bngpod.app.config;
