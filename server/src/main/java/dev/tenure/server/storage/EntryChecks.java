package dev.tenure.server.storage;

import com.google.protobuf.CodedInputStream;
import io.aeron.cluster.codecs.MessageHeaderDecoder;
import io.aeron.cluster.codecs.SessionMessageHeaderDecoder;
import io.aeron.cluster.codecs.SnapshotMark;
import io.aeron.cluster.codecs.SnapshotMarkerDecoder;
import java.io.IOException;
import org.agrona.DirectBuffer;
import org.jspecify.annotations.Nullable;

/**
 * What each recording the node recovers from may hold, entry by entry: the checks that catch an
 * entry whose frames pass {@link RecordingWalk} but whose length changed within its frame's 32
 * bytes (the one header change the frame checksum does not cover).
 *
 * <p>Aeron's own entries (the consensus module's and the service container's, SBE-encoded) are
 * read by offsets from their start: trailing zeros a longer length adds change nothing, and a
 * shorter one is caught by the walk's zero padding. A Tenure command is a protobuf message, which
 * has no length of its own: a trailing zero is an invalid protobuf tag and a cut field a truncated
 * message, so every command must be whole protobuf fields. The state machine's snapshot carries its total length, so
 * its entries must add up to it exactly.
 */
final class EntryChecks {

    private static final int SBE_HEADER = MessageHeaderDecoder.ENCODED_LENGTH;

    private EntryChecks() {}

    /**
     * The log: Aeron Cluster entries, each a session message carrying a Tenure command or one of
     * the consensus module's own (timers, sessions opened and closed, new terms).
     */
    static RecordingWalk.EntryCheck log() {
        MessageHeaderDecoder header = new MessageHeaderDecoder();
        byte[][] scratch = {new byte[4096]};
        return (position, buffer, offset, length) -> {
            String problem = clusterEntry(header, buffer, offset, length);
            if (problem != null || header.templateId() != SessionMessageHeaderDecoder.TEMPLATE_ID) {
                return problem;
            }
            int payload = SBE_HEADER + header.blockLength();
            int commandLength = length - payload;
            if (scratch[0].length < commandLength) {
                scratch[0] = new byte[Math.max(commandLength, scratch[0].length * 2)];
            }
            buffer.getBytes(offset + payload, scratch[0], 0, commandLength);
            return wholeProtobuf(scratch[0], commandLength);
        };
    }

    /**
     * Null if {@code bytes} are whole protobuf fields from the first byte to the last: each tag
     * non-zero and each field inside the entry. That is all a changed length can break (trailing
     * zeros are a zero tag, a cut is a field that runs past the end); the bytes themselves are the
     * checksum's. Cheaper than parsing the command, which builds it.
     */
    static @Nullable String wholeProtobuf(byte[] bytes, int length) {
        CodedInputStream in = CodedInputStream.newInstance(bytes, 0, length);
        try {
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                if (!in.skipField(tag)) {
                    return "the entry is not a Tenure command (an end-group tag at byte " + in.getTotalBytesRead()
                            + ")";
                }
            }
            return null;
        } catch (IOException e) {
            return "the entry is not a Tenure command (" + e.getMessage() + ")";
        }
    }

    /** The consensus module's snapshot: its own entries only. */
    static RecordingWalk.EntryCheck consensusModuleSnapshot() {
        MessageHeaderDecoder header = new MessageHeaderDecoder();
        return (position, buffer, offset, length) -> clusterEntry(header, buffer, offset, length);
    }

    private static @Nullable String clusterEntry(
            MessageHeaderDecoder header, DirectBuffer buffer, int offset, int length) {
        if (length < SBE_HEADER) {
            return "an entry of " + length + " bytes is shorter than an Aeron Cluster header";
        }
        header.wrap(buffer, offset);
        if (header.schemaId() != MessageHeaderDecoder.SCHEMA_ID) {
            return "the entry is not an Aeron Cluster message (schema " + header.schemaId() + ")";
        }
        if (length < SBE_HEADER + header.blockLength()) {
            return "an entry of " + length + " bytes is shorter than its " + header.blockLength() + "-byte block";
        }
        return null;
    }

    /**
     * The state machine's snapshot recording: the service container's entries up to its end
     * marker, then the snapshot's header entry and its bytes, which must add up to the length the
     * header gives; nothing after them.
     */
    static final class ServiceSnapshot implements RecordingWalk.EntryCheck {
        private final MessageHeaderDecoder header = new MessageHeaderDecoder();
        private final SnapshotMarkerDecoder marker = new SnapshotMarkerDecoder();
        private boolean containerDone;
        private long expectedBytes = -1;
        private long bytes;

        @Override
        public @Nullable String problem(long position, DirectBuffer buffer, int offset, int length) {
            if (!containerDone) {
                String problem = clusterEntry(header, buffer, offset, length);
                if (problem == null && header.templateId() == SnapshotMarkerDecoder.TEMPLATE_ID) {
                    marker.wrapAndApplyHeader(buffer, offset, header);
                    containerDone = marker.mark() == SnapshotMark.END;
                }
                return problem;
            }
            if (expectedBytes < 0) {
                if (length != ServiceSnapshotLayout.HEADER_BYTES
                        || buffer.getInt(offset) != ServiceSnapshotLayout.HEADER_MAGIC) {
                    return "the entry after the service container's is not a Tenure snapshot header";
                }
                expectedBytes = buffer.getInt(offset + 4);
                return null;
            }
            bytes += length;
            if (bytes > expectedBytes) {
                return "the snapshot's entries run past the " + expectedBytes + " bytes its header gives";
            }
            return null;
        }

        /** Null if the whole snapshot was there; else what is missing. */
        @Nullable
        String missing() {
            if (expectedBytes < 0) {
                return "the recording ends before the Tenure snapshot's header";
            }
            if (bytes != expectedBytes) {
                return "the recording ends after " + bytes + " of the snapshot's " + expectedBytes + " bytes";
            }
            return null;
        }
    }
}
