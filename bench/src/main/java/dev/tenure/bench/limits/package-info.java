/** Nullness: every type in this package is non-null unless marked {@code @Nullable}. */
@NullMarked
package dev.tenure.bench.limits;

import org.jspecify.annotations.NullMarked;
