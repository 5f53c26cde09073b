//! A function whose sizes are `int` parameters, specialised to one size point for
//! `gpucc library`: its text with each size fixed by a macro of its own, so that gpucc
//! compiles kernels for exactly that size (no guards for partial tiles, alignment proven
//! for wide copies), and the check can scale the macros down as it does for any
//! `#define`d size.

use crate::frontend::lexer::{lex, Tok};

/// The specialised file: the text, and the `#define` lines it starts with.
pub(super) struct Specialised {
    pub text: String,
    pub defines: String,
    /// `(size, macro)`: `("m", "GPUCC_C0_m")`.
    pub macros: Vec<(String, String)>,
}

/// `original` with function `function`'s size parameters fixed at `point`: each size
/// parameter is renamed `gpucc_given_NAME` (the function still takes it) and every other
/// use of the name in the function becomes the macro `GPUCC_C{class}_NAME`, defined at
/// the top of the file. `None` when the function is not found.
pub(super) fn specialise(
    original: &str,
    function: &str,
    point: &[(String, i64)],
    class: usize,
) -> Option<Specialised> {
    let tokens = lex(original, 0);
    let outline = crate::frontend::scan::scan(&tokens);
    let f = outline.functions.iter().find(|f| f.name == function)?;
    let macros: Vec<(String, String)> = point
        .iter()
        .map(|(n, _)| (n.clone(), format!("GPUCC_C{class}_{n}")))
        .collect();
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for k in f.lparen..=f.rbrace {
        let Tok::Ident(word) = &tokens[k].tok else {
            continue;
        };
        let Some((_, m)) = macros.iter().find(|(n, _)| n == word) else {
            continue;
        };
        // The parameter's own declaration: `int m` followed by `,` or `)`.
        let declares = k < f.rparen
            && k > f.lparen
            && matches!(tokens.get(k + 1).map(|t| &t.tok), Some(Tok::Punct(p)) if *p == "," || *p == ")")
            && matches!(&tokens[k - 1].tok, Tok::Kw(t) if *t == "int" || *t == "long" || *t == "unsigned");
        let replacement = if declares {
            format!("gpucc_given_{word}")
        } else {
            m.clone()
        };
        edits.push((tokens[k].span.start, tokens[k].span.end, replacement));
    }
    let mut text = String::new();
    let mut defines = String::new();
    for ((_, v), (_, m)) in point.iter().zip(&macros) {
        defines.push_str(&format!("#define {m} {v}\n"));
    }
    text.push_str(&defines);
    let mut at = 0;
    for (start, end, r) in edits {
        text.push_str(&original[at..start]);
        text.push_str(&r);
        at = end;
    }
    text.push_str(&original[at..]);
    Some(Specialised {
        text,
        defines,
        macros,
    })
}
