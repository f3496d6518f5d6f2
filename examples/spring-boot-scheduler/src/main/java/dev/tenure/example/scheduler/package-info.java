/**
 * A Spring Boot application whose {@code @Scheduled} job runs under ShedLock's
 * {@code @SchedulerLock} through Tenure and fences every write it makes with the lock's token.
 *
 * <p>Nullness: every type in this package is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.tenure.example.scheduler;

import org.jspecify.annotations.NullMarked;
