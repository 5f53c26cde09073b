//! `gpucc tune`'s database: every evaluation of a recipe, one JSON object per line,
//! appended as it happens (an interrupted search loses nothing), read back by the next
//! search of the same kernel at the same size on the same device (nothing evaluated
//! twice), and merged from several files (shards, machines) by `gpucc tune merge`.
//!
//! A record is keyed by the device, the driver (`emulator` for predictions), gpucc's
//! version, the kernel (its file name and a hash of its text and macros: an edited file
//! is another kernel) and the size; with the recipe's text, it names one evaluation.

use super::Known;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What an evaluation's outcome depends on besides the recipe.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Key {
    /// The device description's name (`NVIDIA H100 SXM5 80GB`).
    pub device: String,
    /// `emulator`, or the CUDA driver that ran the timing.
    pub driver: String,
    /// gpucc's version.
    pub gpucc: String,
    /// `gemm_symbolic.c@3f2a...`: the file name and the hash of its text and macros.
    pub kernel: String,
    /// `ni=1024,nj=1024,nk=1024`, names in order.
    pub size: String,
}

/// One evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    #[serde(flatten)]
    pub key: Key,
    /// `emulator` (a prediction) or `gpu` (a measurement).
    pub source: String,
    pub recipe: String,
    /// Predicted or measured microseconds; `None` when the recipe failed.
    pub time_us: Option<f64>,
    /// The emulated time below the device's floors, which orders predictions the floor
    /// makes equal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below_floor_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `2026-11-27T03:14:15Z`.
    pub date: String,
}

/// A database file, open for appending.
pub struct Database {
    pub path: PathBuf,
    pub records: Vec<Record>,
}

impl Database {
    /// Reads `path` (a missing file is an empty database); a line that is not a record
    /// is an error naming the file and line.
    pub fn open(path: &Path) -> Result<Database, String> {
        let records = match std::fs::read_to_string(path) {
            Ok(text) => parse(path, &text)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(format!("cannot read `{}`: {e}", path.display())),
        };
        Ok(Database {
            path: path.to_path_buf(),
            records,
        })
    }

    /// The outcomes recorded under `key` from `source`, by recipe text (the latest wins).
    pub fn known(&self, key: &Key, source: &str) -> Known {
        self.records
            .iter()
            .filter(|r| r.key == *key && r.source == source)
            .map(|r| {
                let outcome = match (r.time_us, &r.error) {
                    (Some(t), _) => Ok((t, r.below_floor_us.unwrap_or(t))),
                    (None, e) => Err(e.clone().unwrap_or_else(|| "failed".to_string())),
                };
                (r.recipe.clone(), outcome)
            })
            .collect()
    }

    /// Appends `records` to the file (one line each, flushed) and to memory.
    pub fn append(&mut self, records: &[Record]) -> Result<(), String> {
        if records.is_empty() {
            return Ok(());
        }
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| format!("cannot write `{}`: {e}", self.path.display()))?;
        let mut text = String::new();
        for r in records {
            text.push_str(&serde_json::to_string(r).map_err(|e| e.to_string())?);
            text.push('\n');
        }
        file.write_all(text.as_bytes())
            .and_then(|_| file.flush())
            .map_err(|e| format!("cannot write `{}`: {e}", self.path.display()))?;
        self.records.extend_from_slice(records);
        Ok(())
    }
}

/// The records of a database file's text.
fn parse(path: &Path, text: &str) -> Result<Vec<Record>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r: Record = serde_json::from_str(line).map_err(|e| {
            format!(
                "{}:{}:{}: not a tuning record: {e}",
                path.display(),
                n + 1,
                e.column()
            )
        })?;
        out.push(r);
    }
    Ok(out)
}

/// What merging found: records read, and those written (duplicates dropped).
pub struct Merged {
    pub read: usize,
    pub written: usize,
}

/// Merges database files into `output` (which may be one of them): every record once,
/// in the order first seen; for the same key, source and recipe, the latest record wins.
pub fn merge(inputs: &[PathBuf], output: &Path) -> Result<Merged, String> {
    let mut all: Vec<Record> = Vec::new();
    let mut read = 0;
    for path in inputs {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        let records = parse(path, &text)?;
        read += records.len();
        all.extend(records);
    }
    let mut kept: Vec<Record> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for r in all {
        let id = (
            r.key.clone().into_tuple(),
            r.source.clone(),
            r.recipe.clone(),
        );
        match index.get(&id) {
            Some(&k) => {
                let old: &mut Record = &mut kept[k];
                if r.date >= old.date {
                    *old = r;
                }
            }
            None => {
                index.insert(id, kept.len());
                kept.push(r);
            }
        }
    }
    let mut text = String::new();
    for r in &kept {
        text.push_str(&serde_json::to_string(r).map_err(|e| e.to_string())?);
        text.push('\n');
    }
    std::fs::write(output, text)
        .map_err(|e| format!("cannot write `{}`: {e}", output.display()))?;
    Ok(Merged {
        read,
        written: kept.len(),
    })
}

impl Key {
    fn into_tuple(self) -> (String, String, String, String, String) {
        (self.device, self.driver, self.gpucc, self.kernel, self.size)
    }
}

/// A 64-bit FNV-1a hash of `text`, in hex: names a kernel's text in [`Key::kernel`].
pub fn text_hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The time now, `2026-11-27T03:14:15Z` (UTC).
pub fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}
