//! What a test can leave in the network namespace it borrowed once its processes are gone
//! ([`left_empty`]): asked before the namespace goes back to the pool (`net`), by the test's
//! supervisor or by the player's kept init (`kept_init`), from inside the namespace.
//!
//! Reads /proc/net only; changes nothing.

use std::io::{self, Read};

use super::sys;

/// The tables of /proc/net that list what a test can leave in its network namespace once its
/// processes are gone: a flow label (`IPV6_FLOWLABEL_MGR`, which lingers up to 150 s after
/// its socket closes, for anyone to see and take) and a Unix socket kept alive by a message in
/// flight that holds it (an abstract name in use; any other socket can be held the same way,
/// through such a Unix socket). Both tables are the namespace's own and cost microseconds.
const LEFT_BEHIND: [&str; 2] = ["ip6_flowlabel", "unix"];

/// Whether the network namespace of the calling thread holds nothing a test left: no socket
/// at all (`sockets: used 0` of /proc/net/sockstat, the namespace's own count of every socket
/// made in it, of any family, a TCP connection still closing included), no TCP socket nor one
/// in TIME-WAIT (`TCP: inuse 0 ... tw 0`, `TCP6: inuse 0`), and none of [`LEFT_BEHIND`]. What
/// a test's supervisor asks once every process of its test is gone, so that only an empty
/// namespace goes back to the pool (a table the kernel does not have counts as empty; one
/// that cannot be read, as not). /proc/net/tcp and tcp6 are not read: each walks the whole
/// machine's TCP hash table, about 4 ms per read on a 24 GB machine, per test.
pub(crate) fn left_empty() -> bool {
    let counts_zero = |table: &str, lines: &[(&str, &[&str])]| match sys::read_text(format!(
        "/proc/thread-self/net/{table}"
    )) {
        Ok(text) => lines
            .iter()
            .all(|(head, keys)| counters_zero(&text, head, keys)),
        Err(e) => e.kind() == io::ErrorKind::NotFound,
    };
    counts_zero(
        "sockstat",
        &[("sockets:", &["used"]), ("TCP:", &["inuse", "tw"])],
    ) && counts_zero("sockstat6", &[("TCP6:", &["inuse"])])
        && LEFT_BEHIND.iter().all(|table| {
            match std::fs::File::open(format!("/proc/thread-self/net/{table}")) {
                Ok(file) => only_header(file),
                Err(e) => e.kind() == io::ErrorKind::NotFound,
            }
        })
}

/// Whether the line of `text` starting with `head` (`TCP: inuse 0 orphan 0 tw 0 ...`) gives 0
/// for every one of `keys`; a missing line or key is not zero.
fn counters_zero(text: &str, head: &str, keys: &[&str]) -> bool {
    let Some(line) = text.lines().find(|l| l.starts_with(head)) else {
        return false;
    };
    let words: Vec<&str> = line[head.len()..].split_whitespace().collect();
    keys.iter().all(|key| {
        words
            .windows(2)
            .any(|pair| pair[0] == *key && pair[1] == "0")
    })
}

/// Whether a /proc/net table has nothing but its header line (read no further than needed).
fn only_header(mut file: std::fs::File) -> bool {
    let mut buf = [0u8; 1024];
    let mut lines = 0;
    loop {
        match file.read(&mut buf) {
            Ok(0) => return true,
            Ok(n) => {
                lines += buf[..n].iter().filter(|&&b| b == b'\n').count();
                if lines > 1 {
                    return false;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::counters_zero;

    #[test]
    fn sockstat_counters_are_read_by_name() {
        let idle =
            "sockets: used 0\nTCP: inuse 0 orphan 3 tw 0 alloc 9 mem 376\nUDP: inuse 0 mem 0\n";
        assert!(counters_zero(idle, "sockets:", &["used"]));
        assert!(counters_zero(idle, "TCP:", &["inuse", "tw"]));
        let closing = "sockets: used 1\nTCP: inuse 1 orphan 0 tw 0 alloc 1 mem 1\n";
        assert!(!counters_zero(closing, "sockets:", &["used"]));
        assert!(!counters_zero(closing, "TCP:", &["inuse", "tw"]));
        let waiting = "TCP: inuse 0 orphan 0 tw 2 alloc 1 mem 1\n";
        assert!(!counters_zero(waiting, "TCP:", &["inuse", "tw"]));
        // A line or a key the kernel does not give is not taken for zero.
        assert!(!counters_zero(idle, "TCP6:", &["inuse"]));
        assert!(!counters_zero(idle, "UDP:", &["tw"]));
    }
}
