/**
 * Tenure's peers under the bench's load: the closed-loop workloads of {@code tenure bench}
 * ({@code uncontended}, {@code parallel}) run against etcd and ZooKeeper through their own lock
 * recipes, so that the three systems are measured by one harness and reported in one form.
 *
 * <p>Nullness: every type in this package is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.tenure.peers;

import org.jspecify.annotations.NullMarked;
