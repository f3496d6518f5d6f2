/** Nullness: every type in this package is non-null unless marked {@code @Nullable}. */
@NullMarked
package dev.tenure.lab.naive;

import org.jspecify.annotations.NullMarked;
