/**
 * The SEBA adapter's components and their pure parts: SADIS mapping, the UNI
 * index, SEBA's BNG events from bngpod's sessions, the Kafka publisher.
 */
package org.bngpod.seba.impl;
