//! What a check found: each compared array, or the two programs' outputs, or a race; and
//! its report for a person. Also the parsing of what the check's programs print.

use super::driver::Reported;
use super::{CheckError, CheckFailure};
use std::fmt::Write as _;

/// How one written array compares.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub array: String,
    pub elements: usize,
    /// The largest difference relative to the magnitude of the reference values.
    pub max_relative_error: f64,
    /// The first element that differs beyond the tolerance, as `C[17][3]`.
    pub first_mismatch: Option<String>,
}

/// The outcome of a check.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A compiled function (or a region called through the function around it): every
    /// array it writes, compared.
    Arrays(Vec<Comparison>),
    /// A whole program: whether both printed the same (and what the original printed).
    Output {
        same: bool,
        reference: String,
        generated: String,
    },
    /// The CPU runtime saw two threads (or blocks) touch one address without ordering,
    /// one of them writing: the report names the kernel, array, element and threads.
    Race(String),
}

impl Outcome {
    pub fn passed(&self) -> bool {
        match self {
            Outcome::Arrays(c) => c.iter().all(|x| x.first_mismatch.is_none()),
            Outcome::Output { same, .. } => *same,
            Outcome::Race(_) => false,
        }
    }
}

/// The outcome for a human: one line per compared array, then the verdict.
pub fn report(outcome: &Outcome) -> String {
    let mut r = String::new();
    match outcome {
        Outcome::Arrays(comparisons) => {
            let width = comparisons.iter().map(|c| c.array.len()).max().unwrap_or(0);
            for c in comparisons {
                let verdict = match &c.first_mismatch {
                    None => "same".to_string(),
                    Some(at) => format!("DIFFERENT, first at {at}"),
                };
                let _ = writeln!(
                    r,
                    "  {:width$}  {} elements  max relative error {:.2e}  {verdict}",
                    c.array, c.elements, c.max_relative_error
                );
            }
            if outcome.passed() {
                let _ = writeln!(r, "verified: every array the code writes is the same");
            } else {
                let _ = writeln!(r, "NOT verified: the CUDA computes something else");
            }
        }
        Outcome::Output {
            same,
            reference,
            generated,
        } => {
            if *same {
                let lines = reference.lines().count();
                let _ = writeln!(
                    r,
                    "verified: both programs print the same ({lines} {})",
                    if lines == 1 { "line" } else { "lines" }
                );
            } else {
                let (k, (a, b)) = reference
                    .lines()
                    .chain(std::iter::repeat(""))
                    .zip(generated.lines().chain(std::iter::repeat("")))
                    .enumerate()
                    .find(|(_, (a, b))| a != b)
                    .unwrap_or((0, ("", "")));
                let _ = writeln!(
                    r,
                    "NOT verified: the programs print different output; first at line {}:",
                    k + 1
                );
                let _ = writeln!(r, "  C:    {a}");
                let _ = writeln!(r, "  CUDA: {b}");
            }
        }
        Outcome::Race(report) => {
            let _ = writeln!(r, "NOT verified: {report}");
        }
    }
    r
}

/// Whether two programs' outputs are the same but for the last digits of their numbers:
/// every word equal, or both numbers within a relative [`PRINTED_TOLERANCE`] (on a GPU nvcc
/// contracts `a * b + c` into fused multiply-adds, and a printed checksum changes in its
/// last digits: 2.8e-8 for gemver on an H100) or one unit of the last digit printed apart
/// (a sum that threads add up in another order may fall on the other side of a rounding
/// boundary: PolyBench's mvt printed `10.08` for the C and `10.07` for its parallel sums at
/// `%0.2lf`). A number printed without a fraction or exponent (an integer) must be equal.
pub(super) fn same_numbers(reference: &str, generated: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (
        reference.split_whitespace().collect(),
        generated.split_whitespace().collect(),
    );
    a.len() == b.len()
        && reference.lines().count() == generated.lines().count()
        && a.iter().zip(&b).all(|(x, y)| {
            x == y
                || match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(u), Ok(v)) => {
                        let unit = last_digit(x).max(last_digit(y));
                        let d = (u - v).abs();
                        d <= PRINTED_TOLERANCE * u.abs().max(v.abs()) || d <= unit * (1.0 + 1e-9)
                    }
                    _ => false,
                }
        })
}

/// The value of one unit in the last digit of a number as printed (`10.08`: 0.01,
/// `1.5e-3`: 1e-4); 0 for an integer, whose digits must all agree.
fn last_digit(word: &str) -> f64 {
    let (mantissa, exponent) = match word.find(['e', 'E']) {
        Some(k) => (&word[..k], word[k + 1..].parse::<i32>().unwrap_or(0)),
        None => (word, 0),
    };
    match mantissa.find('.') {
        Some(k) => 10f64.powi(exponent - (mantissa.len() - k - 1) as i32),
        None if word.contains(['e', 'E']) => 10f64.powi(exponent),
        None => 0.0,
    }
}

/// See [`same_numbers`].
const PRINTED_TOLERANCE: f64 = 1e-6;

/// The GPU runtime's `gpucc-time KERNEL LAUNCHES TOTAL_US` lines.
pub(super) fn parse_times(output: &str) -> Result<Vec<KernelTime>, CheckError> {
    output
        .lines()
        .filter_map(|l| l.strip_prefix("gpucc-time "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match (
                f.first(),
                f.get(1).and_then(|x| x.parse().ok()),
                f.get(2).and_then(|x| x.parse().ok()),
            ) {
                (Some(k), Some(launches), Some(total_us)) => Ok(KernelTime {
                    kernel: k.to_string(),
                    launches,
                    total_us,
                }),
                _ => Err(CheckError::new(
                    CheckFailure::Internal,
                    format!("unreadable timing line: gpucc-time {l}"),
                )),
            }
        })
        .collect()
}

/// One kernel's time on the GPU: the medians of its launches, summed.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelTime {
    pub kernel: String,
    pub launches: u64,
    pub total_us: f64,
}

/// The comparisons the generated driver printed, one `gpucc-array NAME ELEMENTS WORST
/// FIRST` line per array.
pub(super) fn parse_report(output: &str, arrays: &[Reported]) -> Result<Outcome, CheckError> {
    let mut comparisons = Vec::new();
    for r in arrays {
        let line = output
            .lines()
            .filter_map(|l| l.strip_prefix("gpucc-array "))
            .find(|l| l.split_whitespace().next() == Some(r.name.as_str()))
            .ok_or_else(|| {
                CheckError::new(
                    CheckFailure::Internal,
                    format!("the check printed nothing for `{}`:\n{output}", r.name),
                )
            })?;
        let fields: Vec<&str> = line.split_whitespace().collect();
        let parse = |k: usize| {
            fields
                .get(k)
                .and_then(|x| x.parse::<f64>().ok())
                .ok_or_else(|| {
                    CheckError::new(
                        CheckFailure::Internal,
                        format!("unreadable check output: gpucc-array {line}"),
                    )
                })
        };
        let elements = parse(1)? as usize;
        let worst = parse(2)?;
        let first = parse(3)? as i64;
        comparisons.push(Comparison {
            array: r.name.clone(),
            elements,
            max_relative_error: worst,
            first_mismatch: (first >= 0).then(|| element_name(&r.name, &r.extents, first)),
        });
    }
    Ok(Outcome::Arrays(comparisons))
}

/// A flat row-major index as `C[17][3]`.
pub fn element_name(array: &str, extents: &[i64], flat: i64) -> String {
    let mut rest = flat;
    let mut index = vec![0; extents.len()];
    for (k, e) in extents.iter().enumerate().rev() {
        index[k] = rest % e.max(&1);
        rest /= e.max(&1);
    }
    let subs: String = index.iter().map(|i| format!("[{i}]")).collect();
    format!("{array}{subs}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_numbers_may_differ_in_their_last_digits_on_a_gpu() {
        assert!(same_numbers(
            "checksum 5201320.1646\n",
            "checksum 5201320.0162\n"
        ));
        assert!(!same_numbers(
            "checksum 5201320.1646\n",
            "checksum 5201330.1646\n"
        ));
        assert!(!same_numbers("checksum 1\n", "checksum 1 2\n"));
        assert!(!same_numbers("sum 3\n", "total 3\n"));
        assert!(!same_numbers("a\nb\n", "a b\n"));
    }

    #[test]
    fn a_printed_rounding_may_flip_in_its_last_digit_but_integers_must_agree() {
        // PolyBench's mvt at %0.2lf, its sums added up by threads in another order.
        assert!(same_numbers("9.70 10.08 7.50\n", "9.70 10.07 7.50\n"));
        assert!(!same_numbers("9.70 10.08 7.50\n", "9.70 10.06 7.50\n"));
        assert!(same_numbers("1.25e-03\n", "1.26e-03\n"));
        assert!(!same_numbers("1.25e-03\n", "1.27e-03\n"));
        assert!(!same_numbers("count 10\n", "count 11\n"));
        assert!((last_digit("10.08") - 0.01).abs() < 1e-12);
        assert!((last_digit("1.5e-3") - 1e-4).abs() < 1e-15);
        assert_eq!(last_digit("42"), 0.0);
    }

    #[test]
    fn element_names_are_row_major() {
        assert_eq!(element_name("C", &[4, 5], 17), "C[3][2]");
        assert_eq!(element_name("x", &[10], 0), "x[0]");
    }
}
