/**
 * What org.bngpod.seba offers other bundles: SADIS subscribers mapped onto the
 * pod's access lines, with their identity and rates.
 */
package org.bngpod.seba.api;
