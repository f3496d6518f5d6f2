package dev.tenure.gateway;

/**
 * How large one page of the lock listing may be. The node's own setting, not the cluster's: the
 * gateway writes the page's bounds into the log entry it sends, so every replica returns the same
 * page whatever its own values.
 *
 * @param listPageMax locks a page may carry; a request asking for more is refused INVALID_ARGUMENT
 * @param listPageDefault locks a page carries when the request names no limit
 * @param listPageBytesMax the page's byte budget by the core's over-count of each lock's wire size:
 *     kept well under the gRPC message limit (4 MiB), so a page always fits one message
 */
public record ListPaging(int listPageMax, int listPageDefault, long listPageBytesMax) {
    public static final ListPaging DEFAULTS = new ListPaging(1_000, 500, 256 * 1024);

    public ListPaging {
        if (listPageMax <= 0 || listPageDefault <= 0 || listPageDefault > listPageMax) {
            throw new IllegalArgumentException("listPageMax must be positive and listPageDefault within 1.."
                    + listPageMax + ", were " + listPageMax + " and " + listPageDefault);
        }
        if (listPageBytesMax <= 0) {
            throw new IllegalArgumentException("listPageBytesMax must be positive, was " + listPageBytesMax);
        }
    }
}
