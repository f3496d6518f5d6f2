package dev.tenure.server.storage;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;

/**
 * A failed file operation on the data directory in an operator's words. The JDK says what went
 * wrong through the exception's class (a {@link NoSuchFileException} carries only the path), and
 * {@code toString()} prints that class's Java name: an operator needs the file and the reason.
 */
public final class FileErrors {
    private FileErrors() {}

    /**
     * What went wrong, and on which file when that is not {@code subject} (the file the caller's
     * sentence already names), e.g. {@code "/d/archive: Not a directory"} or {@code "permission denied"}.
     */
    public static String reason(IOException e, Path subject) {
        if (!(e instanceof FileSystemException fs)) {
            return e.getMessage() == null || e.getMessage().isBlank() ? "an input/output error" : e.getMessage();
        }
        String file = fs.getFile();
        String other = fs.getOtherFile();
        String on = file == null || (subject != null && Path.of(file).equals(subject)) ? "" : file + ": ";
        return on + what(fs) + (other == null ? "" : " (and " + other + ")");
    }

    private static String what(FileSystemException fs) {
        if (fs.getReason() != null) {
            return fs.getReason();
        }
        if (fs instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (fs instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (fs instanceof FileAlreadyExistsException) {
            return "a file of that name exists";
        }
        if (fs instanceof DirectoryNotEmptyException) {
            return "a directory that is not empty";
        }
        if (fs instanceof NotDirectoryException) {
            return "not a directory";
        }
        return "cannot be used";
    }
}
