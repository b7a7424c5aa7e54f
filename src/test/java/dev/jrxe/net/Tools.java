package dev.jrxe.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the external checkers the tests rely on (installed by .ci/run: tshark, python3-scapy, tcpdump, ethtool). */
final class Tools {
    static final Path ORACLE = Path.of(System.getProperty("jrxe.oracle", "../shared/oracle/roce_check.py"));
    static final String PYTHON = "/usr/bin/python3";

    private Tools() {
    }

    record Result(int exit, String out) {
        List<String> lines() {
            return out.isBlank() ? List.of() : Arrays.asList(out.strip().split("\n"));
        }

        String lastLine() {
            List<String> l = lines();
            return l.isEmpty() ? "" : l.get(l.size() - 1);
        }
    }

    static Result run(String... command) throws IOException, InterruptedException {
        return run(List.of(command));
    }

    static Result run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("timed out: " + command);
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** Runs roce_check.py on a capture; fails loudly when the oracle or its tools are missing. */
    static Result roceCheck(Path capture) throws IOException, InterruptedException {
        return roceCheck(capture, 4791);
    }

    /** roce_check.py on a capture whose RoCEv2 traffic uses UDP port {@code port}. */
    static Result roceCheck(Path capture, int port) throws IOException, InterruptedException {
        if (!Files.isRegularFile(ORACLE)) {
            throw new IllegalStateException("roce_check.py not found at " + ORACLE + " (set -Djrxe.oracle)");
        }
        Result r = run(PYTHON, ORACLE.toString(), "--port", Integer.toString(port), capture.toString());
        if (r.exit() == 2) {
            throw new IllegalStateException("roce_check.py could not run (tshark / python3-scapy installed?):\n" + r.out());
        }
        return r;
    }

    /** tshark -T fields over a capture: one String[] per frame. */
    static List<String[]> tsharkFields(Path capture, String filter, String... fields) throws IOException, InterruptedException {
        return tsharkFields(capture, 4791, filter, fields);
    }

    /** tshark -T fields, decoding UDP port {@code port} as RoCEv2. */
    static List<String[]> tsharkFields(Path capture, int port, String filter, String... fields)
        throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-n", "-r", capture.toString(),
                "-o", "ip.check_checksum:TRUE", "-o", "infiniband.rroce.port:" + port, "-T", "fields",
                "-E", "separator=,"));
        if (filter != null) {
            cmd.add("-Y");
            cmd.add(filter);
        }
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("tshark failed on " + capture);
        }
        List<String[]> rows = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (!line.isBlank()) {
                rows.add(line.split(",", -1));
            }
        }
        return rows;
    }
}
