// The local tester of the example TopCoder-shaped problem "Knapsack Pick", written by this
// project for the harness's tests. Shaped like a TopCoder Marathon tester.jar:
//
//   java -jar tester.jar -exec "<command>" -seed S [-novis] [-timeLimit MS] [-noOutput]
//                        [-printRuntime] [-debug] [-saveSolInput DIR] [-N n]
//
// It makes the test of seed S itself, starts the player with Runtime.exec(String) (the
// command is split on whitespace, no quoting, no shell), writes the test to the player's
// standard input, reads the answer from its standard output and prints `Score = X` (a double)
// on standard output. A wrong or missing answer prints the reason and the error score,
// `Score = -1.0`. The player's standard error is copied to standard output unless -noOutput.
//
// Problem: N items, item i weighs w_i and is worth v_i; the bag holds at most C. Input (to the
// player): N, then C, then N lines `w v`, one number or pair per line. Output (from the
// player): K, then K lines, each the 0-based index of a chosen item, all distinct, total
// weight at most C. Score: the chosen items' total worth (higher is better).
//
// Options (keys are case-insensitive; short forms in brackets): -exec [-ex] command,
// -seed [-sd] S or A,B (the seeds A..B) or {A,B,C}, -novis [-nv] (accepted: this tester has no
// window), -vis, -delay [-dl] MS (accepted, unused), -timeLimit [-tl] MS (the player's thinking
// time, from the end of the input to its last answer line), -noOutput [-no], -printRuntime
// [-pr], -noSummary [-ns] (no summary after several seeds), -debug [-db] (print the test's
// `N = n` and `C = c`), -saveSolInput [-si] [DIR] (write what the player is sent to
// DIR/<seed>.in; DIR defaults to .), -N n (fix the number of items). Any other -key value is
// kept as a problem parameter and, unless named above, ignored.
//
// Exit status: 0 whenever a score line was printed (the error score included); 255 for bad
// options or a command that cannot be started (then a stack trace, as TopCoder's testers do).

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

public class Tester {
    static final int MIN_N = 10, MAX_N = 100;
    static final double ERROR_SCORE = -1;

    private static final Map<String, String> ALIASES = new HashMap<>();

    static {
        ALIASES.put("ex", "exec");
        ALIASES.put("sd", "seed");
        ALIASES.put("nv", "novis");
        ALIASES.put("no", "nooutput");
        ALIASES.put("tl", "timelimit");
        ALIASES.put("dl", "delay");
        ALIASES.put("db", "debug");
        ALIASES.put("pr", "printruntime");
        ALIASES.put("ns", "nosummary");
        ALIASES.put("si", "savesolinput");
    }

    private final Map<String, String> params;
    private final long seed;

    // The test.
    private int n;
    private int capacity;
    private int[] weight;
    private int[] worth;

    // The run.
    private Process process;
    private LineReader reader;
    private final long timeLimitMs;
    private long elapsedNs;

    Tester(Map<String, String> params, long seed) {
        this.params = params;
        this.seed = seed;
        this.timeLimitMs = params.containsKey("timelimit") ? Long.parseLong(params.get("timelimit")) : 0;
    }

    /** SplitMix64: the same seed gives the same test on every JVM. */
    static final class Rng {
        private long state;

        Rng(long seed) {
            state = seed ^ 0x7c0d_e000_0000_0003L;
        }

        long next() {
            state += 0x9e3779b97f4a7c15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
            z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
            return z ^ (z >>> 31);
        }

        /** A uniform integer in lo..=hi. */
        int range(int lo, int hi) {
            return lo + (int) Long.remainderUnsigned(next(), hi - lo + 1);
        }
    }

    void generate() {
        Rng rng = new Rng(seed);
        n = rng.range(MIN_N, MAX_N);
        // As in TopCoder's testers, seeds 1 and 2 are the smallest and the largest test.
        if (seed == 1) n = MIN_N;
        if (seed == 2) n = MAX_N;
        if (params.containsKey("n")) {
            n = Math.max(MIN_N, Math.min(MAX_N, Integer.parseInt(params.get("n"))));
        }
        weight = new int[n];
        worth = new int[n];
        long total = 0;
        for (int i = 0; i < n; i++) {
            weight[i] = rng.range(1, 100);
            worth[i] = rng.range(1, 100);
            total += weight[i];
        }
        capacity = (int) (total * rng.range(20, 60) / 100);
    }

    /** Copies the player's standard error to standard output (or nowhere). */
    static final class ErrorReader extends Thread {
        private final InputStream from;
        private final boolean print;

        ErrorReader(InputStream from, boolean print) {
            this.from = from;
            this.print = print;
            setDaemon(true);
        }

        public void run() {
            byte[] buffer = new byte[65536];
            try {
                int read;
                while ((read = from.read(buffer)) > 0) {
                    if (print) {
                        synchronized (System.out) {
                            System.out.write(buffer, 0, read);
                            System.out.flush();
                        }
                    }
                }
            } catch (IOException e) {
                // The player is gone.
            }
        }
    }

    private static final class Fail extends Exception {
        private static final long serialVersionUID = 1L;

        Fail(String message) {
            super(message);
        }
    }

    /** The player's output lines, read by a thread of their own so a time limit holds. */
    static final class LineReader extends Thread {
        static final String EOF = new String("end of output");
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final BufferedReader from;

        LineReader(InputStream from) {
            this.from = new BufferedReader(new InputStreamReader(from));
            setDaemon(true);
        }

        public void run() {
            try {
                String line;
                while ((line = from.readLine()) != null) lines.add(line);
            } catch (IOException e) {
                // The player is gone: the same as the end of its output.
            }
            lines.add(EOF);
        }
    }

    /** The player's next line; the thinking time counts while it is awaited. */
    private String readLine() throws Fail {
        String line = null;
        long start = System.nanoTime();
        try {
            if (timeLimitMs > 0) {
                long left = timeLimitMs - elapsedNs / 1_000_000;
                line = left > 0 ? reader.lines.poll(left, TimeUnit.MILLISECONDS) : null;
            } else {
                line = reader.lines.take();
            }
        } catch (InterruptedException e) {
            line = null;
        }
        elapsedNs += System.nanoTime() - start;
        if (line == null) {
            process.destroyForcibly();
            throw new Fail("TIMEOUT! Time limit of " + timeLimitMs + " ms exceeded.");
        }
        if (line == LineReader.EOF) {
            try {
                process.waitFor(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                // Judged as still running.
            }
            if (!process.isAlive()) {
                throw new Fail("ERROR! Solution process terminated before outputting the expected data.");
            }
            throw new Fail("ERROR! Failed to read output from solution.");
        }
        return line;
    }

    private int readInt(String what) throws Fail {
        String line = readLine();
        try {
            return Integer.parseInt(line.trim());
        } catch (NumberFormatException e) {
            throw new Fail("ERROR! Error reading " + what + ": [" + line + "] is not an integer.");
        }
    }

    @SuppressWarnings("deprecation")
    double runTest() {
        generate();
        if (params.containsKey("debug")) {
            System.out.println("N = " + n);
            System.out.println("C = " + capacity);
        }
        StringBuilder test = new StringBuilder();
        test.append(n).append('\n').append(capacity).append('\n');
        for (int i = 0; i < n; i++) test.append(weight[i]).append(' ').append(worth[i]).append('\n');
        if (params.containsKey("savesolinput")) {
            String folder = params.get("savesolinput");
            File dir = new File(folder == null ? "." : folder);
            dir.mkdirs();
            try {
                Files.write(new File(dir, seed + ".in").toPath(), test.toString().getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                System.out.println("ERROR saving the solution's input: " + e.getMessage());
            }
        }
        String command = params.get("exec");
        try {
            process = Runtime.getRuntime().exec(command);
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(-1);
        }
        ErrorReader errors = new ErrorReader(process.getErrorStream(), !params.containsKey("nooutput"));
        errors.start();
        reader = new LineReader(process.getInputStream());
        reader.start();
        double score = ERROR_SCORE;
        try {
            try {
                BufferedWriter to = new BufferedWriter(new OutputStreamWriter(process.getOutputStream()));
                to.write(test.toString());
                to.flush();
            } catch (IOException e) {
                // A player that has gone is judged by what it wrote, not by this write.
            }
            int k = readInt("the number of chosen items");
            if (k < 0 || k > n) throw new Fail("ERROR! The number of chosen items must be in 0.." + n + ", got " + k + ".");
            List<Integer> chosen = new ArrayList<>();
            for (int j = 0; j < k; j++) chosen.add(readInt("chosen item " + j));
            boolean[] used = new boolean[n];
            long load = 0;
            long total = 0;
            for (int j = 0; j < k; j++) {
                int i = chosen.get(j);
                if (i < 0 || i >= n) throw new Fail("ERROR! Chosen item " + j + " is " + i + ", not an index in 0.." + (n - 1) + ".");
                if (used[i]) throw new Fail("ERROR! Item " + i + " is chosen twice.");
                used[i] = true;
                load += weight[i];
                total += worth[i];
            }
            if (load > capacity) throw new Fail("ERROR! The chosen items weigh " + load + ", more than the capacity " + capacity + ".");
            score = total;
        } catch (Fail fail) {
            System.out.println(fail.getMessage());
            score = ERROR_SCORE;
        } finally {
            try {
                process.getOutputStream().close();
            } catch (IOException e) {
                // Already closed by the player's end.
            }
            process.destroy();
            try {
                errors.join(1000);
            } catch (InterruptedException e) {
                // Printing the score matters more than the last error lines.
            }
        }
        return score;
    }

    private static void invalid() {
        System.out.println("ERROR: Invalid command line parameters!");
        System.out.println("It should contain one or more a sequence of");
        System.out.println("    -key value     (a single value)");
        System.out.println("    -key start,end (a range, from start to end, inclusive)");
        System.out.println("    -flag          (enable a flag)");
        System.exit(-1);
    }

    static Map<String, String> parseArgs(String[] args) {
        Map<String, String> params = new HashMap<>();
        String last = null;
        for (String arg : args) {
            if (!arg.startsWith("-")) {
                if (last == null) invalid();
                params.put(last, arg);
                last = null;
            } else {
                if (last != null) params.put(last, null);
                last = arg.substring(1).toLowerCase();
                last = ALIASES.getOrDefault(last, last);
                if (last.isEmpty()) last = null;
            }
        }
        if (last != null) params.put(last, null);
        return params;
    }

    static List<Long> parseSeeds(String value) {
        List<Long> seeds = new ArrayList<>();
        if (value == null) {
            seeds.add(1L);
        } else if (value.startsWith("{") && value.endsWith("}")) {
            for (String s : value.substring(1, value.length() - 1).split(",")) seeds.add(Long.parseLong(s.trim()));
        } else if (value.contains(",")) {
            String[] s = value.split(",");
            long a = Long.parseLong(s[0].trim());
            long b = Long.parseLong(s[s.length - 1].trim());
            for (long seed = a; seed <= b; seed++) seeds.add(seed);
        } else {
            seeds.add(Long.parseLong(value.trim()));
        }
        return seeds;
    }

    public static void main(String[] args) {
        Map<String, String> params = parseArgs(args);
        if (params.get("exec") == null) {
            System.out.println("ERROR: no solution to run: give its command with -exec \"<command>\".");
            System.exit(-1);
        }
        List<Long> seeds;
        try {
            seeds = parseSeeds(params.get("seed"));
        } catch (NumberFormatException e) {
            System.out.println("ERROR getting parameter seed: " + params.get("seed"));
            System.exit(-1);
            return;
        }
        boolean several = seeds.size() > 1;
        int failed = 0;
        long totalMs = 0;
        for (long seed : seeds) {
            Tester tester = new Tester(params, seed);
            double score = tester.runTest();
            StringBuilder line = new StringBuilder();
            if (several) line.append("Seed = ").append(seed).append(", ");
            line.append("Score = ").append(score);
            if (params.containsKey("printruntime")) line.append(", RunTime = ").append(tester.elapsedNs / 1_000_000).append(" ms");
            synchronized (System.out) {
                System.out.println(line);
                System.out.flush();
            }
            if (score == ERROR_SCORE) failed++;
            totalMs += tester.elapsedNs / 1_000_000;
        }
        if (several && !params.containsKey("nosummary")) {
            System.out.println();
            System.out.println("   Executed Cases: " + seeds.size());
            System.out.println("     Failed Cases: " + failed);
            System.out.println("    Avg. Run Time: " + totalMs / seeds.size() + " ms");
        }
    }
}
