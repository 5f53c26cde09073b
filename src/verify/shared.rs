//! A kernel's shared memory rewritten for the CPU runtime's race detection: `__shared__`
//! arrays become `gpucc_shared<T>`, `extern __shared__ T name[];` (the launch's dynamic
//! shared memory) `gpucc_dynamic<T>`, and the arrays gpucc carves out of dynamic shared
//! memory (`T (&name)[N]... = *reinterpret_cast<T (*)[N]...>(base + offset);`)
//! `gpucc_shared_at<T[N]...>`, and pointers declared into dynamic shared memory (`float
//! *part = &sdata[n];`) `gpucc_shared_ptr<T>`: each element a proxy that logs its reads
//! and writes (see `cuda_runtime.h`). Lines are kept, as in the rest of [`super::rewrite`].

use super::rewrite::{
    is_ident, is_ident_byte, line_of, lines_lost, split_params, trailing_ident_start, Code,
};

/// `__shared__ float A_shared[64][17];` →
/// `__shared__ gpucc_shared<float[64][17]> A_shared("A_shared");` (each declarator of a
/// list its own declaration, on the same lines); `extern __shared__ float d[];` →
/// `gpucc_dynamic<float> d("d");`, and the arrays carved out of `d` as
/// [`carved_arrays`] says. A declaration the runtime cannot take is an error: its line in
/// `body` (from 1) and why.
///
/// `dynamic` holds the names of the dynamic shared arrays declared before `body` (at file
/// scope, seen by every kernel after them); those `body` declares are added to it.
pub fn shared_declarations(
    body: &str,
    dynamic: &mut Vec<String>,
) -> Result<String, (usize, String)> {
    let code = Code::new(body);
    let mut out = String::with_capacity(body.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(at) = code.find("__shared__", from) {
        let decl_start = at + "__shared__".len();
        from = decl_start;
        let bytes = body.as_bytes();
        let whole_word = at.checked_sub(1).is_none_or(|k| !is_ident_byte(bytes[k]))
            && bytes.get(decl_start).is_none_or(|&b| !is_ident_byte(b));
        if !whole_word {
            continue;
        }
        let line = line_of(body, at);
        let semi = code
            .find(";", decl_start)
            .ok_or_else(|| (line, "a `__shared__` declaration has no `;`".to_string()))?;
        let decl = &body[decl_start..semi];
        if let Some(start) = extern_before(body, at) {
            let (ty, name) = dynamic_declaration(decl).ok_or_else(|| {
                (
                    line,
                    format!(
                        "the check cannot read the `extern __shared__` declaration `{}` (it takes one array of unknown size, `extern __shared__ T name[];`)",
                        decl.trim()
                    ),
                )
            })?;
            let text = format!("gpucc_dynamic<{ty}> {name}(\"{name}\")");
            splice(&mut out, body, copied, start..semi, &text);
            dynamic.push(name);
            copied = semi;
            from = semi;
            continue;
        }
        out.push_str(&body[copied..decl_start]);
        copied = semi;
        from = semi;
        if !decl.contains('[') {
            out.push_str(decl);
            continue;
        }
        let unreadable = || {
            (
                line,
                format!(
                    "the check cannot read the `__shared__` declaration `{}`",
                    decl.trim()
                ),
            )
        };
        let declarators = split_params(decl);
        let first = declarators.first().map(String::as_str).unwrap_or("");
        let bracket = first.find('[').unwrap_or(first.len());
        let head = first[..bracket].trim_end();
        let name_start = trailing_ident_start(head);
        // `__align__(16)`: the CPU runtime aligns every shared array so.
        let ty = strip_align(head[..name_start].trim());
        if ty.is_empty() {
            return Err(unreadable());
        }
        let mut parts = Vec::new();
        for (k, d) in declarators.iter().enumerate() {
            let d = if k == 0 {
                &first[name_start..]
            } else {
                d.as_str()
            };
            let bracket = d.find('[');
            let name = d[..bracket.unwrap_or(d.len())].trim();
            let dims = bracket.map_or("", |b| d[b..].trim());
            if !is_ident(name) {
                return Err(unreadable());
            }
            if dims.replace(' ', "").contains("[]") {
                return Err((
                    line,
                    format!("`{name}` has no size (`[]`) and is not `extern __shared__`"),
                ));
            }
            parts.push(if dims.is_empty() {
                format!("{ty} {name}")
            } else {
                format!("gpucc_shared<{ty}{dims}> {name}(\"{name}\")")
            });
        }
        let parts = format!(" {}", parts.join("; __shared__ "));
        out.push_str(&parts);
        out.push_str(&lines_lost(decl, &parts));
    }
    out.push_str(&body[copied..]);
    if dynamic.is_empty() {
        return Ok(out);
    }
    Ok(shared_pointers(&carved_arrays(&out, dynamic), dynamic))
}

/// `T *name = init;`, where `init` uses one of the `dynamic` shared arrays (or a pointer
/// rewritten so before it), → `gpucc_shared_ptr<T> name(init, "name");`: the accesses
/// through the pointer are logged for races and checked against the launch's bytes, as the
/// array's are. A `volatile` pointer (the warp-synchronous reductions of older samples,
/// which rely on no barrier) and any other declaration are left as they are.
fn shared_pointers(text: &str, dynamic: &[String]) -> String {
    let code = Code::new(text);
    let bytes = text.as_bytes();
    let mut names: Vec<String> = dynamic.to_vec();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut at = 0;
    while at < text.len() {
        if !code.is_code(at)
            || !is_ident_byte(bytes[at])
            || (at > 0 && is_ident_byte(bytes[at - 1]))
        {
            at += 1;
            continue;
        }
        let end = (at..text.len())
            .find(|&k| !is_ident_byte(bytes[k]))
            .unwrap_or(text.len());
        let word = &text[at..end];
        at = end;
        if !names.iter().any(|n| n == word) {
            continue;
        }
        let Some(semi) = code.find(";", end) else {
            break;
        };
        let Some(start) = statement_start(&code, bytes, copied, at) else {
            continue;
        };
        let Some((ty, name, init)) = pointer_declaration(&text[start..semi]) else {
            continue;
        };
        let rewritten = format!("gpucc_shared_ptr<{ty}> {name}({init}, \"{name}\")");
        splice(&mut out, text, copied, start..semi, &rewritten);
        names.push(name);
        copied = semi;
        at = semi;
    }
    out.push_str(&text[copied..]);
    out
}

/// Appends `text` from `copied` up to the statement at `statement`, then `replacement`
/// for that statement, with the line breaks it lost (the lines after keep their numbers).
fn splice(
    out: &mut String,
    text: &str,
    copied: usize,
    statement: std::ops::Range<usize>,
    replacement: &str,
) {
    out.push_str(&text[copied..statement.start]);
    out.push_str(replacement);
    out.push_str(&lines_lost(&text[statement], replacement));
}

/// Where the statement holding `at` starts: its first token after the last `;`, `{` or `}`
/// of code between `from` and `at` (or after `from`).
fn statement_start(code: &Code, bytes: &[u8], from: usize, at: usize) -> Option<usize> {
    let previous = (from..at)
        .rev()
        .find(|&k| code.is_code(k) && matches!(bytes[k], b';' | b'{' | b'}'))
        .map_or(from, |k| k + 1);
    code.next_token(previous).filter(|&k| k <= at)
}

/// The pointee type, name and initializer of `T *name = init` (one declarator, `T` words
/// only and not `volatile`).
fn pointer_declaration(statement: &str) -> Option<(String, String, String)> {
    let eq = statement.find('=')?;
    if statement[eq + 1..].starts_with('=') {
        return None;
    }
    let (lhs, init) = (statement[..eq].trim(), statement[eq + 1..].trim());
    let (ty, name) = lhs.split_once('*')?;
    let (ty, name) = (ty.trim(), name.trim());
    let words: Vec<&str> = ty.split_whitespace().collect();
    let plain = !words.is_empty()
        && words.iter().all(|w| is_ident(w))
        && !words.contains(&"volatile")
        && !words.contains(&"return");
    (plain && is_ident(name) && !init.is_empty() && split_params(init).len() == 1)
        .then(|| (words.join(" "), name.to_string(), init.to_string()))
}

/// Where the `extern` right before the `__shared__` at `at` starts, if one is there.
fn extern_before(body: &str, at: usize) -> Option<usize> {
    let before = body[..at].trim_end();
    let start = trailing_ident_start(before);
    let at_word_start = start == 0 || !is_ident_byte(before.as_bytes()[start - 1]);
    (&before[start..] == "extern" && at_word_start).then_some(start)
}

/// The element type and name of ` __align__(16) T name[]` (what follows
/// `extern __shared__`).
fn dynamic_declaration(decl: &str) -> Option<(String, String)> {
    let decl = decl.trim();
    if split_params(decl).len() != 1 {
        return None;
    }
    let head = decl
        .strip_suffix(']')?
        .trim_end()
        .strip_suffix('[')?
        .trim_end();
    let name_start = trailing_ident_start(head);
    let name = &head[name_start..];
    let ty = strip_align(head[..name_start].trim());
    (is_ident(name) && !ty.is_empty() && !ty.contains(['*', '[', '(']))
        .then(|| (ty, name.to_string()))
}

/// `T (&name)[N]... = *reinterpret_cast<T (*)[N]...>(base + offset);`, where `base` is one
/// of the `dynamic` shared arrays, → `gpucc_shared_at<T[N]...> name("name", base, offset);`
/// (gpucc's form for the tiles of a block that are over the 48 KB it may declare
/// statically). Any other use of `base` is left as it is: the runtime takes subscripts of
/// it, and [`shared_pointers`] the pointers declared into it.
fn carved_arrays(text: &str, dynamic: &[String]) -> String {
    let code = Code::new(text);
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut from = 0;
    while let Some(at) = code.find("reinterpret_cast", from) {
        from = at + 1;
        let Some(semi) = code.find(";", at) else {
            break;
        };
        let Some(start) = statement_start(&code, bytes, copied, at) else {
            continue;
        };
        let Some(carved) = carved(&text[start..semi], dynamic) else {
            continue;
        };
        splice(&mut out, text, copied, start..semi, &carved);
        copied = semi;
        from = semi;
    }
    out.push_str(&text[copied..]);
    out
}

/// One statement of [`carved_arrays`]'s form (without its `;`), rewritten; `None` if it is
/// not of that form.
fn carved(statement: &str, dynamic: &[String]) -> Option<String> {
    let squash = |s: &str| s.split_whitespace().collect::<String>();
    let (lhs, rhs) = statement.split_once('=')?;
    let open = lhs.find("(&")?;
    let ty = lhs[..open].trim();
    let close = open + lhs[open..].find(')')?;
    let name = lhs[open + 2..close].trim();
    let dims = lhs[close + 1..].trim();
    if !is_ident(name) || ty.is_empty() || !dims.starts_with('[') || !dims.ends_with(']') {
        return None;
    }
    let rhs = rhs
        .trim()
        .strip_prefix('*')?
        .trim_start()
        .strip_prefix("reinterpret_cast")?
        .trim_start()
        .strip_prefix('<')?;
    let gt = rhs.find('>')?;
    if squash(&rhs[..gt]) != squash(&format!("{ty} (*){dims}")) {
        return None;
    }
    let argument = rhs[gt + 1..]
        .trim()
        .strip_prefix('(')?
        .strip_suffix(')')?
        .trim();
    let (base, offset) = match argument.split_once('+') {
        Some((base, offset)) => (base.trim(), offset.trim()),
        None => (argument, "0"),
    };
    if !dynamic.iter().any(|d| d == base) || offset.is_empty() {
        return None;
    }
    Some(format!(
        "gpucc_shared_at<{ty}{}> {name}(\"{name}\", {base}, {offset})",
        dims.split_whitespace().collect::<String>()
    ))
}

/// A declaration's type without its `__align__(N)` (wherever it stands).
fn strip_align(ty: &str) -> String {
    let Some(at) = ty.find("__align__") else {
        return ty.to_string();
    };
    let end = ty[at..].find(')').map_or(ty.len(), |k| at + k + 1);
    format!("{} {}", ty[..at].trim(), ty[end..].trim())
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_shared_memory_and_the_arrays_carved_out_of_it() {
        let body = "{\n  extern __shared__ __align__(16) unsigned char gpucc_shared_memory[];\n  double (&A_shared)[2][64][17] = *reinterpret_cast<double (*)[2][64][17]>(gpucc_shared_memory + 0);\n  double (&B_shared)[2][16]\n    [68] = *reinterpret_cast<double (*)[2][16][68]>(gpucc_shared_memory + 17408);\n  float *p = reinterpret_cast<float *>(gpucc_shared_memory);\n}";
        let done = shared_declarations(body, &mut Vec::new()).unwrap();
        assert_eq!(
            done,
            "{\n  gpucc_dynamic<unsigned char> gpucc_shared_memory(\"gpucc_shared_memory\");\n  gpucc_shared_at<double[2][64][17]> A_shared(\"A_shared\", gpucc_shared_memory, 0);\n  gpucc_shared_at<double[2][16][68]> B_shared(\"B_shared\", gpucc_shared_memory, 17408)\n;\n  gpucc_shared_ptr<float> p(reinterpret_cast<float *>(gpucc_shared_memory), \"p\");\n}"
        );
        // The form the CUDA samples use, and a reference to an array that is not in
        // dynamic shared memory (left as it is).
        let body = "{ extern __shared__ float sdata[]; sdata[threadIdx.x] = 0; float (&r)[4] = *reinterpret_cast<float (*)[4]>(other + 4); }";
        assert_eq!(
            shared_declarations(body, &mut Vec::new()).unwrap(),
            "{ gpucc_dynamic<float> sdata(\"sdata\"); sdata[threadIdx.x] = 0; float (&r)[4] = *reinterpret_cast<float (*)[4]>(other + 4); }"
        );
    }

    #[test]
    fn pointers_into_dynamic_shared_memory_are_tracked() {
        let body = "{ extern __shared__ float s[];\n  const float *a = &s[4];\n  float *b = a + 2, *c = s;\n  volatile float *v = s;\n  float *d =\n    s + 8;\n  if (x == *a) y = 1;\n}";
        let done = shared_declarations(body, &mut Vec::new()).unwrap();
        assert_eq!(done.lines().count(), body.lines().count(), "{done}");
        for expected in [
            "gpucc_shared_ptr<const float> a(&s[4], \"a\");",
            // Two declarators, and a volatile pointer: left as they are.
            "float *b = a + 2, *c = s;",
            "volatile float *v = s;",
            "gpucc_shared_ptr<float> d(s + 8, \"d\")\n;",
            "if (x == *a) y = 1;",
        ] {
            assert!(done.contains(expected), "no `{expected}` in\n{done}");
        }
    }

    #[test]
    fn shared_declarations_the_runtime_cannot_take_are_said() {
        for (body, expected) in [
            (
                "{\n\n __shared__ float d[]; }",
                "`d` has no size (`[]`) and is not `extern __shared__`",
            ),
            (
                "{ extern __shared__ float a[], b[]; }",
                "cannot read the `extern __shared__` declaration `float a[], b[]`",
            ),
            (
                "{ extern __shared__ float a[4]; }",
                "cannot read the `extern __shared__` declaration",
            ),
            ("{ __shared__ float d[3] }", "has no `;`"),
        ] {
            let (_, why) = shared_declarations(body, &mut Vec::new()).unwrap_err();
            assert!(why.contains(expected), "{body}: {why}");
        }
        assert_eq!(
            shared_declarations("{\n\n __shared__ float d[]; }", &mut Vec::new())
                .unwrap_err()
                .0,
            3
        );
    }
}
