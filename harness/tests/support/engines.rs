//! Scale-out engines brought up under a temporary folder for the tests: a Slurm cluster
//! (munged, slurmctld and one slurmd per emulated node, no systemd) and an sshd on a
//! loopback port with generated keys. Every daemon is a child started in the foreground and
//! is stopped by the guard's `Drop` (also when a test fails): jobs cancelled, then SIGTERM,
//! then SIGKILL, always reaped; and dies with the test's thread if the test is killed. The
//! programs each engine needs are listed ([`SLURM`], [`SSHD`]) for the tests' switches
//! (`support::needs`), which fail a test that misses one, naming what to install.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A free TCP port on the loopback interface (bound, read, released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The programs of a Slurm cluster, with their Debian packages.
pub const SLURM: &[(&str, &str)] = &[
    ("munged", "munge"),
    ("slurmctld", "slurmctld"),
    ("slurmd", "slurmd"),
    ("sbatch", "slurm-client"),
    ("sinfo", "slurm-client"),
];

/// The programs of the test's sshd and its client, with their Debian packages.
pub const SSHD: &[(&str, &str)] = &[
    ("/usr/sbin/sshd", "openssh-server"),
    ("ssh", "openssh-client"),
    ("ssh-keygen", "openssh-client"),
];

fn waited_for(what: &str, timeout: Duration, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < timeout,
            "{what} not ready after {timeout:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Daemons started by a test; all stopped when dropped.
#[derive(Default)]
pub struct Daemons {
    children: Vec<(String, Child)>,
    /// Run before the daemons are stopped (cancel the jobs).
    before_stop: Vec<Command>,
}

impl Daemons {
    pub fn start(&mut self, name: &str, mut cmd: Command, log: &Path) {
        use std::os::unix::process::CommandExt;
        // Should the test process itself be killed (no Drop), the daemon dies with it.
        // SAFETY: prctl is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let out = std::fs::File::create(log).unwrap();
        let child = cmd
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        self.children.push((name.to_string(), child));
    }

    /// Panics (with the log) when a daemon has exited.
    pub fn check_alive(&mut self, logs: &Path) {
        for (name, child) in &mut self.children {
            if let Ok(Some(status)) = child.try_wait() {
                let log =
                    std::fs::read_to_string(logs.join(format!("{name}.log"))).unwrap_or_default();
                panic!("{name} exited ({status}):\n{log}");
            }
        }
    }

    pub fn pids(&self) -> Vec<u32> {
        self.children.iter().map(|(_, c)| c.id()).collect()
    }
}

impl Drop for Daemons {
    fn drop(&mut self) {
        for cmd in &mut self.before_stop {
            let _ = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status();
        }
        // Newest first: slurmd before slurmctld before munged.
        for (_, child) in self.children.iter_mut().rev() {
            // SAFETY: a plain kill(2) of our own child, not yet reaped.
            unsafe {
                libc::kill(child.id() as i32, libc::SIGTERM);
            }
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        for (_, child) in self.children.iter_mut().rev() {
            loop {
                match child.try_wait() {
                    Ok(Some(_)) | Err(_) => break,
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(50))
                    }
                    Ok(None) => {
                        let _ = child.kill();
                        let _ = child.wait();
                        break;
                    }
                }
            }
        }
    }
}

/// A Slurm cluster of emulated nodes on this machine.
pub struct Slurm {
    pub dir: PathBuf,
    pub conf: PathBuf,
    pub nodes: Vec<String>,
    pub daemons: Daemons,
}

/// How the nodes bind tasks to CPUs.
pub enum Tasks {
    /// `task/affinity`: each task gets a CPU mask (the real cluster's default).
    Affinity,
    /// `task/none`: no binding (several emulated nodes share the CPUs; run with --no-pin).
    Unbound,
}

impl Slurm {
    /// Brings up munged, slurmctld and `cpus.len()` slurmd nodes (`n1`, `n2`, ...; node i
    /// declared with `cpus[i]` CPUs) under `dir`; returns once every node is idle. The test
    /// has checked [`SLURM`] first.
    pub fn start(dir: &Path, cpus: &[usize], tasks: Tasks) -> Slurm {
        let dir = dir.to_path_buf();
        let logs = dir.join("log");
        for sub in ["munge/key", "munge/run", "state", "spool", "log"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: PathBuf, m: u32| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
        };
        // munged refuses a key folder others can read and a socket folder they cannot.
        mode(dir.join("munge/key"), 0o700);
        mode(dir.join("munge/run"), 0o755);
        mode(dir.join("munge"), 0o755);
        mode(dir.clone(), 0o755);
        let key = dir.join("munge/key/munge.key");
        let mut bytes = vec![0u8; 1024];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
            .unwrap();
        std::fs::write(&key, bytes).unwrap();
        mode(key.clone(), 0o400);
        let socket = dir.join("munge/run/munge.sock");
        let mut daemons = Daemons::default();
        let mut munged = Command::new("munged");
        munged
            .arg("-F")
            .arg(format!("--key-file={}", key.display()))
            .arg(format!("--socket={}", socket.display()))
            .arg(format!(
                "--log-file={}",
                logs.join("munged-own.log").display()
            ))
            .arg(format!(
                "--pid-file={}",
                dir.join("munge/run/munged.pid").display()
            ))
            .arg(format!("--seed-file={}", dir.join("munge/seed").display()));
        daemons.start("munged", munged, &logs.join("munged.log"));
        waited_for("munged", Duration::from_secs(10), || socket.exists());

        // The machine's own node line (sockets, cores, memory), renamed per emulated node.
        let probe = Command::new("slurmd").arg("-C").output().unwrap();
        let line = String::from_utf8_lossy(&probe.stdout)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        let memory = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("RealMemory="))
            .and_then(|m| m.parse::<u64>().ok())
            .unwrap_or(2000);
        let (ctld_port, task_plugin) = (
            free_port(),
            match tasks {
                Tasks::Affinity => "task/affinity",
                Tasks::Unbound => "task/none",
            },
        );
        let d = dir.display();
        let mut conf = format!(
            "ClusterName=harnesstest\nSlurmctldHost=localhost(127.0.0.1)\nSlurmUser=root\n\
             SlurmdUser=root\nSlurmctldPort={ctld_port}\nAuthType=auth/munge\n\
             AuthInfo=socket={}\nCredType=cred/munge\nStateSaveLocation={d}/state\n\
             SlurmdSpoolDir={d}/spool/%n\nSlurmctldPidFile={d}/slurmctld.pid\n\
             SlurmdPidFile={d}/slurmd-%n.pid\nSlurmctldLogFile={d}/log/slurmctld-own.log\n\
             SlurmdLogFile={d}/log/slurmd-%n-own.log\nProctrackType=proctrack/linuxproc\n\
             TaskPlugin={task_plugin}\nSchedulerType=sched/backfill\n\
             SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\nReturnToService=2\n\
             MpiDefault=none\nJobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n\
             MinJobAge=600\n",
            socket.display()
        );
        let nodes: Vec<String> = (1..=cpus.len()).map(|i| format!("n{i}")).collect();
        for (node, n) in nodes.iter().zip(cpus) {
            conf.push_str(&format!(
                "NodeName={node} NodeAddr=127.0.0.1 Port={} CPUs={n} RealMemory={}\n",
                free_port(),
                memory / cpus.len() as u64
            ));
        }
        conf.push_str("PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n");
        let conf_path = dir.join("slurm.conf");
        std::fs::write(&conf_path, conf).unwrap();

        let mut ctld = Command::new("slurmctld");
        ctld.args(["-D", "-i"]).env("SLURM_CONF", &conf_path);
        daemons.start("slurmctld", ctld, &logs.join("slurmctld.log"));
        for node in &nodes {
            let mut slurmd = Command::new("slurmd");
            slurmd
                .args(["-D", "-N", node])
                .env("SLURM_CONF", &conf_path);
            daemons.start(
                &format!("slurmd-{node}"),
                slurmd,
                &logs.join(format!("slurmd-{node}.log")),
            );
        }
        let mut scancel = Command::new("scancel");
        scancel
            .args(["--full", "--user", "root"])
            .env("SLURM_CONF", &conf_path);
        daemons.before_stop.push(scancel);
        let mut slurm = Slurm {
            dir,
            conf: conf_path,
            nodes,
            daemons,
        };
        let want = slurm.nodes.len();
        let logs2 = logs.clone();
        let start = Instant::now();
        loop {
            slurm.daemons.check_alive(&logs2);
            let out = slurm
                .command("sinfo")
                .args(["-h", "-N", "-o", "%N %t"])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            let idle = text.lines().filter(|l| l.ends_with(" idle")).count();
            if idle == want {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "Slurm nodes not idle after 30 s: {text}\nslurmctld log:\n{}",
                std::fs::read_to_string(logs2.join("slurmctld-own.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        slurm
    }

    /// A Slurm client command for this cluster.
    pub fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.env("SLURM_CONF", &self.conf);
        cmd
    }

    /// Waits until a job (every task of an array) has ended, polling `squeue`.
    pub fn wait_ended(&self, job: &str, timeout: Duration) {
        const RUNNING: [&str; 5] = [
            "PENDING",
            "CONFIGURING",
            "RUNNING",
            "COMPLETING",
            "SUSPENDED",
        ];
        waited_for(&format!("the end of job {job}"), timeout, || {
            let states = self.states(job);
            !states.is_empty() && states.iter().all(|(_, s)| !RUNNING.contains(&s.as_str()))
        });
    }

    /// `squeue -t all` of a job: (task id, state) of each of its tasks.
    pub fn states(&self, job: &str) -> Vec<(String, String)> {
        let out = self
            .command("squeue")
            .args(["-h", "-t", "all", "-j", job, "-o", "%i %T"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }
}

/// An sshd on a port of 127.0.0.1 and 127.0.0.2 (two "hosts") that lets this user in with a
/// generated key.
pub struct Sshd {
    pub port: u16,
    pub key: PathBuf,
    pub daemons: Daemons,
}

impl Sshd {
    /// The test has checked [`SSHD`] first.
    pub fn start(dir: &Path) -> Sshd {
        std::fs::create_dir_all(dir).unwrap();
        // sshd's privilege separation folder (Debian's service makes it; no service here).
        std::fs::create_dir_all("/run/sshd").unwrap();
        let keygen = |path: &Path| {
            let out = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(path)
                .output()
                .unwrap();
            assert!(out.status.success(), "ssh-keygen: {out:?}");
        };
        let (host_key, key) = (dir.join("host_key"), dir.join("user_key"));
        keygen(&host_key);
        keygen(&key);
        let authorized = dir.join("authorized_keys");
        std::fs::copy(dir.join("user_key.pub"), &authorized).unwrap();
        let port = free_port();
        let config = dir.join("sshd_config");
        std::fs::write(
            &config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nListenAddress 127.0.0.2\nHostKey {}\nAuthorizedKeysFile {}\n\
                 PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n\
                 PermitRootLogin prohibit-password\nStrictModes no\nPidFile {}\n\
                 AcceptEnv LANG LC_*\n",
                host_key.display(),
                authorized.display(),
                dir.join("sshd.pid").display()
            ),
        )
        .unwrap();
        let mut daemons = Daemons::default();
        let mut sshd = Command::new("/usr/sbin/sshd");
        sshd.args(["-D", "-e", "-f"]).arg(&config);
        daemons.start("sshd", sshd, &dir.join("sshd.log"));
        let sshd = Sshd { port, key, daemons };
        let start = Instant::now();
        loop {
            let out = Command::new("ssh")
                .args(sshd.options())
                .args(["127.0.0.1", "true"])
                .output()
                .unwrap();
            if out.status.success() {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(15),
                "cannot ssh to the test's sshd: {}\nsshd log:\n{}",
                String::from_utf8_lossy(&out.stderr),
                std::fs::read_to_string(dir.join("sshd.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        sshd
    }

    /// ssh's options to reach it (no host key checking, the generated key only).
    pub fn options(&self) -> Vec<String> {
        vec![
            "-p".into(),
            self.port.to_string(),
            "-i".into(),
            self.key.display().to_string(),
            "-o".into(),
            "BatchMode=yes".into(),
            "-o".into(),
            "StrictHostKeyChecking=no".into(),
            "-o".into(),
            "UserKnownHostsFile=/dev/null".into(),
            "-o".into(),
            "IdentitiesOnly=yes".into(),
            "-o".into(),
            "LogLevel=ERROR".into(),
        ]
    }

    /// The ssh command line GNU parallel's --ssh takes.
    pub fn ssh_command(&self) -> String {
        format!("ssh {}", self.options().join(" "))
    }
}
