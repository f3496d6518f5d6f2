/**
 * {@link dev.tenure.shedlock.TenureLockProvider}, a ShedLock lock provider on Tenure: each lock is
 * a lease with a fencing token, which the running task reads with {@code currentToken()}.
 *
 * <p>Nullness: every type in this package is non-null unless marked {@code @Nullable}.
 */
@NullMarked
package dev.tenure.shedlock;

import org.jspecify.annotations.NullMarked;
