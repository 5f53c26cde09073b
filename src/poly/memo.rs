//! Results of isl computations kept for the rest of the process, keyed by their inputs'
//! texts. The strategy generator compiles every variant of a nest from the start, so the
//! same AST, schedule, legality question or loop extent comes back again and again
//! (gemm_nn: 468 dependence checks, 136 distinct); isl objects belong to one thread's
//! context, so what is kept is plain data.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

/// One kind of result, by key. Errors are not kept (a computation cut short by isl's
/// operation limit may be asked again).
pub struct Memo<V> {
    kept: LazyLock<Mutex<HashMap<String, V>>>,
    /// Entries kept at most; past it the memo starts again.
    most: usize,
}

impl<V: Clone> Memo<V> {
    pub const fn new(most: usize) -> Memo<V> {
        Memo {
            kept: LazyLock::new(|| Mutex::new(HashMap::new())),
            most,
        }
    }

    /// The value kept for `key`, else what `compute` gives (kept when it is `Ok`).
    pub fn get_or<E>(&self, key: String, compute: impl FnOnce() -> Result<V, E>) -> Result<V, E> {
        if let Some(value) = self.get(&key) {
            return Ok(value);
        }
        let value = compute()?;
        self.put(key, value.clone());
        Ok(value)
    }

    pub fn get(&self, key: &str) -> Option<V> {
        self.kept.lock().ok()?.get(key).cloned()
    }

    pub fn put(&self, key: String, value: V) {
        if let Ok(mut kept) = self.kept.lock() {
            if kept.len() >= self.most {
                kept.clear();
            }
            kept.insert(key, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Memo;

    #[test]
    fn a_value_is_computed_once_and_errors_are_not_kept() {
        static SQUARES: Memo<i64> = Memo::new(2);
        let mut calls = 0;
        let mut square = |n: i64| {
            SQUARES.get_or(n.to_string(), || {
                calls += 1;
                if n < 0 {
                    Err("negative")
                } else {
                    Ok(n * n)
                }
            })
        };
        assert_eq!(square(3), Ok(9));
        assert_eq!(square(3), Ok(9));
        assert_eq!(square(-1), Err("negative"));
        assert_eq!(square(-1), Err("negative"));
        // Past `most` entries the memo starts again.
        assert_eq!(square(4), Ok(16));
        assert_eq!(square(5), Ok(25));
        assert_eq!(square(3), Ok(9));
        assert_eq!(calls, 6);
    }
}
