//! The preparation cache of `tessera run`: the answers of a kernel's preparation (its proof,
//! each tensor's simplified and validated index code, the contiguity proofs), kept on disk so
//! that a second run of the same kernel at the same values starts at once.
//!
//! Where: `$TESSERA_CACHE_DIR`, else `$XDG_CACHE_HOME/tessera`, else `~/.cache/tessera`; entries
//! are files under its `prep-v1/`. `--no-cache`, or `TESSERA_NO_CACHE` set to anything but
//! empty or `0`, turns it off (nothing is read or written). Deleting the folder clears it.
//!
//! An entry is the answer to one question ([`tessera_codegen::Memo`]): its file is named by the
//! SHA-256 of the build's identity, the kind and the question's full text, and holds all three
//! again beside the answer, under a SHA-256 of its contents. It is used only when the checksum
//! holds and the identity, kind and question stored equal the ones asked, byte for byte, so a
//! truncated, altered or colliding entry is a miss (and is rewritten), never an answer. The
//! identity is the version, z3's version and the executable's path, size and modification time:
//! a rebuilt binary reads none of an older one's entries. Writes go to a temporary file in the
//! same folder, renamed over the entry: a reader sees a whole entry or none, whatever runs at
//! the same time.
//!
//! ```
//! use tessera::prep_cache::PrepCache;
//! use tessera_codegen::Memo;
//! let dir = std::env::temp_dir().join(format!("tessera-doc-cache-{}", std::process::id()));
//! let c = PrepCache::at(dir.clone(), "build 1".into());
//! assert_eq!(c.recall("proof", "kernel k"), None);
//! c.record("proof", "kernel k", "proved");
//! assert_eq!(c.recall("proof", "kernel k").as_deref(), Some("proved"));
//! // Another build reads nothing of it.
//! assert_eq!(PrepCache::at(dir.clone(), "build 2".into()).recall("proof", "kernel k"), None);
//! std::fs::remove_dir_all(dir).unwrap();
//! ```

use sha2::{Digest, Sha256};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use tessera_codegen::Memo;

/// The variable naming the cache's folder.
pub const CACHE_DIR_ENV: &str = "TESSERA_CACHE_DIR";

/// The variable that turns the cache off (any value but empty or `0`).
pub const NO_CACHE_ENV: &str = "TESSERA_NO_CACHE";

/// The first line of every entry (the format's version).
const MAGIC: &str = "tessera-prep-cache 1";

/// The subfolder of the entries of this format.
const SUBDIR: &str = "prep-v1";

/// The largest entry read (a larger file is not an entry).
const MAX_ENTRY: u64 = 64 << 20;

/// What a run did with the cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Answers read from entries.
    pub hits: usize,
    /// Questions without a usable entry (absent, damaged or another question's).
    pub misses: usize,
    /// Of the misses: entries present but not used (damaged, another build's or question's).
    pub rejected: usize,
    /// Entries written.
    pub writes: usize,
}

/// The cache in one folder for one build (see the module documentation).
#[derive(Debug)]
pub struct PrepCache {
    dir: PathBuf,
    identity: String,
    stats: Cell<Stats>,
}

/// The hexadecimal SHA-256 of `parts`, each followed by a zero byte.
fn sha256_hex(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0u8]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// A kind as entries name it: its ASCII letters and digits (it is part of a file name).
fn kind_name(kind: &str) -> String {
    kind.chars().filter(char::is_ascii_alphanumeric).collect()
}

/// The cache folder the environment names: `$TESSERA_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/tessera`, else `$HOME/.cache/tessera` (empty and relative values of the
/// last two ignored); `None` without any.
///
/// @pre none. @post an absolute folder, unless `TESSERA_CACHE_DIR` names a relative one.
///
/// ```
/// // Whatever the environment, the answer is a path or nothing.
/// let _ = tessera::prep_cache::cache_dir();
/// ```
pub fn cache_dir() -> Option<PathBuf> {
    let var = |n: &str| std::env::var_os(n).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(d) = var(CACHE_DIR_ENV) {
        return Some(d);
    }
    if let Some(x) = var("XDG_CACHE_HOME").filter(|p| p.is_absolute()) {
        return Some(x.join("tessera"));
    }
    var("HOME")
        .filter(|p| p.is_absolute())
        .map(|h| h.join(".cache").join("tessera"))
}

/// Whether `TESSERA_NO_CACHE` turns the cache off.
///
/// ```
/// let _ = tessera::prep_cache::disabled_by_env();
/// ```
pub fn disabled_by_env() -> bool {
    std::env::var_os(NO_CACHE_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// This build's identity: the version, z3's version, and the running executable's path, size
/// and modification time (nanoseconds); `None` when the executable cannot be examined.
///
/// ```
/// let id = tessera::prep_cache::build_identity().unwrap();
/// assert!(id.starts_with(concat!("tessera ", env!("CARGO_PKG_VERSION"))));
/// ```
pub fn build_identity() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let m = std::fs::metadata(&exe).ok()?;
    let mtime = m
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    let id = format!(
        "tessera {}; z3 {}; exe {} {} {mtime}",
        env!("CARGO_PKG_VERSION"),
        tessera_verifier::solver_version(),
        exe.display(),
        m.len()
    );
    // One line: the entry's header holds it.
    Some(id.replace(['\n', '\r'], " "))
}

impl PrepCache {
    /// The cache of `tessera run`: `None` when `off` (`--no-cache`), when `TESSERA_NO_CACHE`
    /// turns it off, or when no folder or build identity is known.
    ///
    /// ```
    /// assert!(tessera::prep_cache::PrepCache::from_env(true).is_none());
    /// ```
    pub fn from_env(off: bool) -> Option<PrepCache> {
        if off || disabled_by_env() {
            return None;
        }
        Some(PrepCache::at(cache_dir()?, build_identity()?))
    }

    /// The cache in folder `dir` (its entries under `dir/prep-v1`, created when first written)
    /// for the build `identity`.
    ///
    /// @pre none. @post nothing is read or written before a recall or a record.
    pub fn at(dir: PathBuf, identity: String) -> PrepCache {
        PrepCache {
            dir: dir.join(SUBDIR),
            identity: identity.replace(['\n', '\r'], " "),
            stats: Cell::new(Stats::default()),
        }
    }

    /// The folder of the entries.
    pub fn entries(&self) -> &Path {
        &self.dir
    }

    /// What this cache has done so far.
    pub fn stats(&self) -> Stats {
        self.stats.get()
    }

    fn count(&self, f: impl FnOnce(&mut Stats)) {
        let mut s = self.stats.get();
        f(&mut s);
        self.stats.set(s);
    }

    /// The entry's file name: the kind (as [`kind_name`] gives it), then the SHA-256 of
    /// identity, kind and question.
    fn file(&self, kind: &str, question: &str) -> PathBuf {
        let h = sha256_hex(&[&self.identity, kind, question]);
        self.dir.join(format!("{kind}-{h}"))
    }

    /// The body of an entry (everything after its checksum line) up to the answer's length.
    fn prefix(&self, kind: &str, question: &str) -> String {
        format!(
            "identity {}\nkind {kind}\nquestion {}\n{question}\nanswer ",
            self.identity,
            question.len()
        )
    }

    /// The answer an entry's text holds for `kind` and `question`, when it is a whole entry
    /// of this build for exactly that question.
    fn read(&self, text: &str, kind: &str, question: &str) -> Option<String> {
        let rest = text.strip_prefix(MAGIC)?.strip_prefix('\n')?;
        let (sum, body) = rest.split_once('\n')?;
        if sum.strip_prefix("sha256 ")? != sha256_hex(&[body]) {
            return None;
        }
        let answer = body.strip_prefix(&self.prefix(kind, question))?;
        let (len, answer) = answer.split_once('\n')?;
        let len: usize = len.parse().ok()?;
        let answer = answer.strip_suffix('\n')?;
        (answer.len() == len).then(|| answer.to_string())
    }
}

impl Memo for PrepCache {
    fn recall(&self, kind: &str, question: &str) -> Option<String> {
        let kind = kind_name(kind);
        let kind = kind.as_str();
        let path = self.file(kind, question);
        let text = std::fs::File::open(&path).ok().and_then(|f| {
            use std::io::Read;
            let mut s = String::new();
            f.take(MAX_ENTRY).read_to_string(&mut s).ok().map(|_| s)
        });
        let answer = text.as_deref().and_then(|t| self.read(t, kind, question));
        self.count(|s| match (&answer, &text) {
            (Some(_), _) => s.hits += 1,
            (None, Some(_)) => {
                s.misses += 1;
                s.rejected += 1;
            }
            (None, None) => s.misses += 1,
        });
        answer
    }

    fn record(&self, kind: &str, question: &str, answer: &str) {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let kind = kind_name(kind);
        let path = self.file(&kind, question);
        let body = format!("{}{}\n{answer}\n", self.prefix(&kind, question), answer.len());
        let text = format!("{MAGIC}\nsha256 {}\n{body}", sha256_hex(&[&body]));
        if std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        // A temporary file in the same folder, renamed over the entry (atomic on one file
        // system): concurrent runs each rename a whole entry, and a reader sees one of them.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let tmp = self.dir.join(format!(
            ".tmp-{}-{nanos}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        if std::fs::write(&tmp, text).is_ok() && std::fs::rename(&tmp, &path).is_ok() {
            self.count(|s| s.writes += 1);
        } else {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}
