/** Nullness: every type in this package is non-null unless marked {@code @Nullable}. */
@NullMarked
package dev.tenure.server.transport;

import org.jspecify.annotations.NullMarked;
