/** Nullness: every type in this package is non-null unless marked {@code @Nullable}. */
@NullMarked
package dev.tenure.client;

import org.jspecify.annotations.NullMarked;
