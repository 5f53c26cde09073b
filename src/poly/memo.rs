//! Results of isl computations kept for the rest of the process, keyed by their inputs'
//! texts. The strategy generator compiles every variant of a nest from the start, so the
//! same AST, schedule, legality question or loop extent comes back again and again
//! (gemm_nn: 468 dependence checks, 136 distinct); isl objects belong to one thread's
//! context, so what is kept is plain data.

use std::collections::{HashMap, HashSet};
use std::sync::{Condvar, LazyLock, Mutex};

/// One kind of result, by key. Errors are not kept (a computation cut short by isl's
/// operation limit may be asked again).
pub struct Memo<V> {
    kept: LazyLock<Mutex<Kept<V>>>,
    /// Signalled when a computation [`Memo::get_or_once`] started ends.
    ended: Condvar,
    /// Entries kept at most; past it the memo starts again.
    most: usize,
}

struct Kept<V> {
    values: HashMap<String, V>,
    /// The keys being computed by [`Memo::get_or_once`].
    computing: HashSet<String>,
}

impl<V: Clone> Memo<V> {
    pub const fn new(most: usize) -> Memo<V> {
        Memo {
            kept: LazyLock::new(|| {
                Mutex::new(Kept {
                    values: HashMap::new(),
                    computing: HashSet::new(),
                })
            }),
            ended: Condvar::new(),
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

    /// [`Memo::get_or`] for a computation long enough that two threads asking at once
    /// should not both run it: the second waits for the first's value (and computes it
    /// itself when the first failed). `compute` must not ask this memo again.
    pub fn get_or_once<E>(
        &self,
        key: String,
        compute: impl FnOnce() -> Result<V, E>,
    ) -> Result<V, E> {
        {
            let Ok(mut kept) = self.kept.lock() else {
                return compute();
            };
            loop {
                if let Some(value) = kept.values.get(&key) {
                    return Ok(value.clone());
                }
                if !kept.computing.contains(&key) {
                    break;
                }
                kept = match self.ended.wait(kept) {
                    Ok(k) => k,
                    Err(_) => return compute(),
                };
            }
            kept.computing.insert(key.clone());
        }
        // Ends the computation's claim however `compute` ends, a panic included.
        struct Claim<'m, V> {
            memo: &'m Memo<V>,
            key: &'m str,
        }
        impl<V> Drop for Claim<'_, V> {
            fn drop(&mut self) {
                if let Ok(mut kept) = self.memo.kept.lock() {
                    kept.computing.remove(self.key);
                }
                self.memo.ended.notify_all();
            }
        }
        let claim = Claim {
            memo: self,
            key: &key,
        };
        let value = compute();
        if let Ok(v) = &value {
            self.put(key.clone(), v.clone());
        }
        drop(claim);
        value
    }

    pub fn get(&self, key: &str) -> Option<V> {
        self.kept.lock().ok()?.values.get(key).cloned()
    }

    pub fn put(&self, key: String, value: V) {
        if let Ok(mut kept) = self.kept.lock() {
            if kept.values.len() >= self.most {
                kept.values.clear();
            }
            kept.values.insert(key, value);
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

    #[test]
    fn a_value_two_threads_ask_for_at_once_is_computed_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static SLOW: Memo<i64> = Memo::new(8);
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        let ask = || {
            SLOW.get_or_once("k".to_string(), || {
                CALLS.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(100));
                Ok::<i64, ()>(7)
            })
        };
        let other = std::thread::spawn(ask);
        assert_eq!(ask(), Ok(7));
        assert_eq!(other.join().unwrap(), Ok(7));
        assert_eq!(CALLS.load(Ordering::SeqCst), 1);
        // A failed computation is not kept: the next asker computes again.
        static FAILING: Memo<i64> = Memo::new(8);
        assert_eq!(
            FAILING.get_or_once("k".to_string(), || Err("quota")),
            Err("quota")
        );
        assert_eq!(
            FAILING.get_or_once("k".to_string(), || Ok::<i64, &str>(3)),
            Ok(3)
        );
    }
}
