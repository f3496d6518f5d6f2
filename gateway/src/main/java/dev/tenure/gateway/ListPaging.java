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

    /**
     * The largest page budget a node takes: a client reads answers of up to 4 MiB (gRPC's default),
     * and the over-count leaves a page well under its budget, so half of that always fits.
     */
    public static final long LIST_PAGE_BYTES_MAX_CEILING = 2L << 20;

    public ListPaging {
        if (listPageMax <= 0 || listPageDefault <= 0 || listPageDefault > listPageMax) {
            throw new IllegalArgumentException("listPageMax must be positive and listPageDefault within 1.."
                    + listPageMax + ", were " + listPageMax + " and " + listPageDefault);
        }
        if (listPageBytesMax <= 0 || listPageBytesMax > LIST_PAGE_BYTES_MAX_CEILING) {
            throw new IllegalArgumentException("listPageBytesMax must be within 1.." + LIST_PAGE_BYTES_MAX_CEILING
                    + " (2 MiB, so that a page fits a client's 4 MiB message), was " + listPageBytesMax);
        }
    }
}
