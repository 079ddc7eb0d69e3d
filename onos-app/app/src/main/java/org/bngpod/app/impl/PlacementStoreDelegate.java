package org.bngpod.app.impl;

import org.onosproject.store.StoreDelegate;

/**
 * The placement manager's side of {@link PlacementStore}: told of changes
 * made on any node, on the store's threads.
 */
public interface PlacementStoreDelegate extends StoreDelegate<PlacementStoreEvent> {
}
