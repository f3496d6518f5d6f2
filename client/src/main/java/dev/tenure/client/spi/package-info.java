/** Nullness: every type in this package is non-null unless marked {@code @Nullable}. */
@NullMarked
package dev.tenure.client.spi;

import org.jspecify.annotations.NullMarked;
