/**
 * The adapter's read-only REST API under /onos/bngpod-seba.
 */
package org.bngpod.seba.rest;
