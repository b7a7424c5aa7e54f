package dev.jrxe.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * setns(2) for network namespaces: moves the calling thread (only it) into another network
 * namespace, so sockets it opens afterwards live there. Tests use it to run links inside a
 * namespace they created (e.g. {@code ip netns add}), never touching the host's network.
 */
public final class Namespaces {
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    private static final int CLONE_NEWNET = 0x40000000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final MethodHandle OPEN = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("open"),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2), ERRNO);
    private static final MethodHandle SETNS = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("setns"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), ERRNO);
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("close"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private Namespaces() {
    }

    /**
     * Moves the calling thread into the network namespace of {@code nsFile} (e.g.
     * {@code /run/netns/NAME}, or {@code /proc/self/ns/net} saved earlier to come back).
     *
     * @return 0, or -errno
     */
    public static int enterNetwork(Path nsFile) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Linker.Option.captureStateLayout());
            MemorySegment path = arena.allocateFrom(nsFile.toString());
            int fd = (int) OPEN.invokeExact(state, path, O_RDONLY | O_CLOEXEC, 0);
            if (fd < 0) {
                return -errno(state);
            }
            int r = (int) SETNS.invokeExact(state, fd, CLONE_NEWNET);
            int e = r < 0 ? errno(state) : 0;
            int ignored = (int) CLOSE.invokeExact(fd);
            return -e;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static int errno(MemorySegment state) {
        return state.get(JAVA_INT, Linker.Option.captureStateLayout().byteOffset(
                java.lang.foreign.MemoryLayout.PathElement.groupElement("errno")));
    }
}
