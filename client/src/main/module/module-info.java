/**
 * Tenure's Java client. The API is the two exported packages; {@code dev.tenure.client.internal}
 * and {@code dev.tenure.client.spi} (the transport hooks of Tenure's own simulation and CLI) are
 * internal and may change in any release.
 */
module dev.tenure.client {
    requires tenure.api; // the api jar's automatic name, from its file name
    requires com.google.protobuf;
    requires io.grpc;
    requires io.grpc.stub;
    requires io.grpc.protobuf;
    requires io.grpc.netty.shaded;
    requires static org.jspecify; // @NullMarked and @Nullable: annotations only, read at compile time

    exports dev.tenure.client;
    exports dev.tenure.client.fence;
}
