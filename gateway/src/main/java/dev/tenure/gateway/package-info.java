/** Nullness: every type in this package is non-null unless marked {@code @Nullable}. */
@NullMarked
package dev.tenure.gateway;

import org.jspecify.annotations.NullMarked;
