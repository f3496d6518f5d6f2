/** Nullness: every type in this package is non-null unless marked {@code @Nullable}. */
@NullMarked
package dev.tenure.server.storage;

import org.jspecify.annotations.NullMarked;
