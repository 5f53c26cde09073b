//! The tile-size rule of seed 004, §5.7.3 (algorithm SelectBlockTileSizes): a tile size
//! that leaves most SMs idle in the last wave of blocks is pruned.
//!
//! Taken literally the rule keeps a size when `(M - 1) / 2 < R < M - 1`, with `B` blocks,
//! `M` SMs and `R = B mod M`: it drops `R = 0`, a perfectly balanced last wave, and
//! `R = M - 1`, a nearly full one, and it counts waves of one block per SM although
//! several blocks reside on an SM at once. gpucc keeps a size when the last wave is full
//! or more than half full, with a wave being `M x resident blocks per SM` blocks:
//! `R = B mod W == 0 or R > W / 2` ([`keeps`]), or when there are [`MANY_WAVES`] waves or
//! more, where a last wave however empty idles the SMs for a small part of the time (and
//! the rule would otherwise prune sizes by the accident of `B mod W`: 32 x 32 tiles of an
//! 8192 x 8192 transpose leave 64 blocks in the 63rd wave of 1,056, whatever the block's
//! threads). When no size passes (a problem too small to fill half of one wave whatever
//! the tiles), the sizes whose last wave is fullest are kept ([`filter`]).

/// From this many waves on, the last wave's fill does not prune a size: its idle SMs cost
/// at most 1 / 16 of the time.
pub const MANY_WAVES: i64 = 16;

/// The rule as the thesis writes it (for comparison in tests and the README).
pub fn keeps_literally(blocks: i64, sms: i64) -> bool {
    let r = blocks % sms;
    (sms - 1) / 2 < r && r < sms - 1
}

/// gpucc's rule: the last wave of `blocks` blocks, in waves of `wave` blocks, is full or
/// more than half full.
pub fn keeps(blocks: i64, wave: i64) -> bool {
    if blocks <= 0 || wave <= 0 {
        return false;
    }
    let r = blocks % wave;
    r == 0 || 2 * r > wave || blocks >= MANY_WAVES * wave
}

/// How full the last wave is, in (0, 1].
pub fn last_wave_fill(blocks: i64, wave: i64) -> f64 {
    if blocks <= 0 || wave <= 0 {
        return 0.0;
    }
    let r = blocks % wave;
    if r == 0 {
        1.0
    } else {
        r as f64 / wave as f64
    }
}

/// The options (each with its block count and wave size) that the rule keeps, or the
/// ones with the fullest last wave when it keeps none. Order is preserved.
pub fn filter<T: Clone>(options: &[(T, i64, i64)]) -> Vec<T> {
    let kept: Vec<T> = options
        .iter()
        .filter(|(_, b, w)| keeps(*b, *w))
        .map(|(t, _, _)| t.clone())
        .collect();
    if !kept.is_empty() {
        return kept;
    }
    let best = options
        .iter()
        .map(|(_, b, w)| last_wave_fill(*b, *w))
        .fold(0.0f64, f64::max);
    options
        .iter()
        .filter(|(_, b, w)| last_wave_fill(*b, *w) >= best - 1e-9)
        .map(|(t, _, _)| t.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_literal_rule_drops_a_balanced_last_wave() {
        // 132 SMs, 264 blocks: two full waves, yet the literal rule prunes it.
        assert!(!keeps_literally(264, 132));
        assert!(keeps(264, 132));
        // R = M - 1: a nearly full last wave, pruned literally, kept here.
        assert!(!keeps_literally(131, 132));
        assert!(keeps(131, 132));
    }

    #[test]
    fn a_mostly_idle_last_wave_is_pruned_by_both() {
        assert!(!keeps_literally(132 + 10, 132));
        assert!(!keeps(132 + 10, 132));
        assert!(keeps_literally(132 + 100, 132));
        assert!(keeps(132 + 100, 132));
    }

    #[test]
    fn resident_blocks_make_the_wave() {
        // 132 SMs x 8 resident blocks: 1056 blocks per wave; 600 blocks fill more than half.
        assert!(keeps(600, 1056));
        assert!(!keeps(400, 1056));
    }

    #[test]
    fn many_waves_keep_a_size_whatever_the_last_one() {
        // 8192 x 8192 in 32 x 32 tiles: 65,536 blocks, 62 full waves of 1,056 and 64 more.
        assert!(keeps(65_536, 1056));
        assert!(!keeps(15 * 132 + 10, 132));
        assert!(keeps(16 * 132 + 10, 132));
    }

    #[test]
    fn a_small_problem_keeps_its_fullest_options() {
        let options = [(32, 4, 132), (64, 2, 132), (128, 1, 132)];
        assert_eq!(filter(&options), vec![32]);
        let options = [(32, 140, 132), (64, 70, 132), (128, 35, 132)];
        assert_eq!(filter(&options), vec![64]);
    }
}
