//! The text surgery that makes a `.cu` run on gpucc's CPU runtime: launches become calls
//! ([`rewrite_launches`]), and kernels log their memory accesses ([`instrument`]) so that
//! the runtime can report races. Entry point: [`prepare_for_cpu`].
//!
//! The `.cu` may be hand-written (`gpucc verify` takes any file), so nothing here trusts
//! the text: comments, strings and character literals are skipped, every bracket is
//! matched before it is used, and a form the runtime cannot take (a launch whose kernel has
//! no plain name, a kernel whose parameters cannot be read) is an error that names
//! it and its line, never a silently unchecked kernel or a panic. Lines are kept: the
//! rewritten text has the `.cu`'s line numbers, so a compiler's message points at the
//! `.cu`.

/// The `.cu` text `cu` rewritten for the CPU runtime (launches, then instrumentation), or
/// why it cannot be.
pub fn prepare_for_cpu(cu: &str) -> Result<String, String> {
    instrument(&rewrite_launches(cu)?)
}

/// Which bytes of a text are code: not inside a comment, a string or a character literal.
pub struct Code<'a> {
    text: &'a str,
    code: Vec<bool>,
}

impl<'a> Code<'a> {
    pub fn new(text: &'a str) -> Code<'a> {
        #[derive(PartialEq)]
        enum State {
            Code,
            LineComment,
            BlockComment,
            Quoted(u8),
        }
        let bytes = text.as_bytes();
        let mut code = vec![true; bytes.len()];
        let mut state = State::Code;
        let mut k = 0;
        while k < bytes.len() {
            let b = bytes[k];
            let next = bytes.get(k + 1).copied();
            match state {
                State::Code => match (b, next) {
                    (b'/', Some(b'/')) => {
                        state = State::LineComment;
                        code[k] = false;
                    }
                    (b'/', Some(b'*')) => {
                        state = State::BlockComment;
                        code[k] = false;
                        code[k + 1] = false;
                        k += 1;
                    }
                    (b'"' | b'\'', _) => {
                        state = State::Quoted(b);
                        code[k] = false;
                    }
                    _ => {}
                },
                State::LineComment => {
                    code[k] = false;
                    if b == b'\n' {
                        state = State::Code;
                    }
                }
                State::BlockComment => {
                    code[k] = false;
                    if b == b'*' && next == Some(b'/') {
                        code[k + 1] = false;
                        k += 1;
                        state = State::Code;
                    }
                }
                State::Quoted(quote) => {
                    code[k] = false;
                    if b == b'\\' && next.is_some() {
                        code[k + 1] = false;
                        k += 1;
                    } else if b == quote || b == b'\n' {
                        state = State::Code;
                    }
                }
            }
            k += 1;
        }
        Code { text, code }
    }

    pub(super) fn is_code(&self, at: usize) -> bool {
        self.code.get(at).copied().unwrap_or(false)
    }

    /// The first occurrence of the ASCII pattern `pat` at or after `from` that starts in
    /// code.
    pub fn find(&self, pat: &str, from: usize) -> Option<usize> {
        let mut from = from;
        while from <= self.text.len() {
            let at = from + self.text.get(from..)?.find(pat)?;
            if self.is_code(at) {
                return Some(at);
            }
            from = at + pat.len().max(1);
        }
        None
    }

    /// The index of the bracket that closes the one at `open` (brackets in comments and
    /// strings do not count); `None` if `open` is not `left` or nothing closes it.
    pub fn matching(&self, open: usize, left: u8, right: u8) -> Option<usize> {
        let bytes = self.text.as_bytes();
        if bytes.get(open) != Some(&left) {
            return None;
        }
        let mut depth = 0usize;
        for (k, &b) in bytes.iter().enumerate().skip(open) {
            if !self.code[k] {
                continue;
            }
            if b == left {
                depth += 1;
            } else if b == right {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k);
                }
            }
        }
        None
    }

    /// The text of `from..to` with every byte that is not code (comments, strings) blank.
    fn code_only(&self, from: usize, to: usize) -> String {
        self.text.as_bytes()[from..to]
            .iter()
            .zip(&self.code[from..to])
            .map(|(&b, &code)| if code && b.is_ascii() { b as char } else { ' ' })
            .collect()
    }

    /// The first byte at or after `from` that is code and not white space.
    pub(super) fn next_token(&self, from: usize) -> Option<usize> {
        (from..self.text.len())
            .find(|&k| self.is_code(k) && !self.text.as_bytes()[k].is_ascii_whitespace())
    }
}

/// The line (from 1) of byte `at` of `text`.
pub(super) fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The line breaks that `original` had and its replacement `replacement` has not, so that
/// the text after a replacement keeps its line numbers.
pub(super) fn lines_lost(original: &str, replacement: &str) -> String {
    let count = |t: &str| t.bytes().filter(|&b| b == b'\n').count();
    "\n".repeat(count(original).saturating_sub(count(replacement)))
}

pub(super) fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Where the identifier that ends `s` starts (`s.len()` when none does): always a char
/// boundary, since identifier bytes are ASCII.
pub(super) fn trailing_ident_start(s: &str) -> usize {
    let bytes = s.as_bytes();
    let mut k = bytes.len();
    while k > 0 && is_ident_byte(bytes[k - 1]) {
        k -= 1;
    }
    k
}

/// `kernel<<<grid, block, shared>>>(args);` →
/// `gpucc_launch<BARRIERS>("kernel", kernel, grid, block, shared, args);`, where `BARRIERS`
/// says whether the kernel's definition in `cu` calls `__syncthreads()`. A launch whose
/// kernel has no plain name is an error.
pub fn rewrite_launches(cu: &str) -> Result<String, String> {
    let code = Code::new(cu);
    let bytes = cu.as_bytes();
    let mut out = String::with_capacity(cu.len() + 256);
    let mut copied = 0;
    let mut from = 0;
    while let Some(at) = code.find("<<<", from) {
        let line = line_of(cu, at);
        let close = code
            .find(">>>", at + 3)
            .ok_or_else(|| format!("line {line}: a launch `<<<` has no `>>>`"))?;
        let open = code
            .next_token(close + 3)
            .filter(|&k| bytes[k] == b'(')
            .ok_or_else(|| format!("line {line}: a launch's `>>>` is not followed by `(`"))?;
        let mut name_end = at;
        while name_end > copied && bytes[name_end - 1].is_ascii_whitespace() {
            name_end -= 1;
        }
        let mut name_start = name_end;
        while name_start > copied && is_ident_byte(bytes[name_start - 1]) {
            name_start -= 1;
        }
        let kernel = &cu[name_start..name_end];
        if kernel.is_empty() || kernel.as_bytes()[0].is_ascii_digit() {
            return Err(format!(
                "line {line}: the check cannot read the name of the kernel launched here (a plain name is needed before `<<<`)"
            ));
        }
        let config = launch_configuration(&cu[at + 3..close])
            .map_err(|why| format!("line {line}: the launch of `{kernel}` {why}"))?;
        let no_arguments = code.next_token(open + 1).map(|k| bytes[k]) == Some(b')');
        out.push_str(&cu[copied..name_start]);
        let call = format!(
            "gpucc_launch<{}>(\"{kernel}\", {kernel}, {config}{}",
            kernel_has_barriers(cu, kernel),
            if no_arguments { "" } else { ", " }
        );
        out.push_str(&call);
        out.push_str(&lines_lost(&cu[name_start..open], &call));
        copied = open + 1;
        from = open + 1;
    }
    out.push_str(&cu[copied..]);
    Ok(out)
}

/// The grid, block and bytes of dynamic shared memory of a launch configuration (`0` when
/// it gives none); a fourth argument (a stream) is dropped: the launches run in program
/// order, one a stream allows.
fn launch_configuration(config: &str) -> Result<String, String> {
    let parts = split_top_level(config, false);
    match parts.len() {
        2 => Ok(format!("{}, 0", parts.join(", "))),
        3 | 4 => Ok(parts[..3].join(", ")),
        _ => Err("needs a grid and a block (`<<<grid, block>>>`)".to_string()),
    }
}

/// Where a kernel is declared: `__global__ void NAME(`, with any `__launch_bounds__(...)`
/// before the name. Returns the name and the offset of its `(`.
fn kernel_at(code: &Code, global: usize) -> Result<(String, usize), String> {
    let text = code.text;
    let bytes = text.as_bytes();
    let line = line_of(text, global);
    let unreadable = || {
        format!("line {line}: the check cannot read this kernel's declaration (expected `__global__ void NAME(...)`)")
    };
    let mut k = code
        .next_token(global + "__global__".len())
        .ok_or_else(unreadable)?;
    if !text[k..].starts_with("void") {
        return Err(unreadable());
    }
    k = code.next_token(k + 4).ok_or_else(unreadable)?;
    if text[k..].starts_with("__launch_bounds__") {
        let open = code
            .next_token(k + "__launch_bounds__".len())
            .ok_or_else(unreadable)?;
        let close = code.matching(open, b'(', b')').ok_or_else(unreadable)?;
        k = code.next_token(close + 1).ok_or_else(unreadable)?;
    }
    let start = k;
    while k < bytes.len() && is_ident_byte(bytes[k]) {
        k += 1;
    }
    let name = &text[start..k];
    let open = code.next_token(k).ok_or_else(unreadable)?;
    if name.is_empty() || bytes[open] != b'(' {
        return Err(unreadable());
    }
    Ok((name.to_string(), open))
}

/// Rewrites the kernels of `cu` so that the CPU runtime logs their memory accesses (for
/// race detection): array parameters become `gpucc_array<T>`, `__shared__` arrays
/// `gpucc_shared<T>`; the kernel bodies are unchanged, and so are the line numbers.
pub fn instrument(cu: &str) -> Result<String, String> {
    let code = Code::new(cu);
    let bytes = cu.as_bytes();
    let mut out = String::with_capacity(cu.len() + 1024);
    let mut copied = 0;
    let mut from = 0;
    // The dynamic shared arrays declared at file scope (`extern __shared__ float s[];`
    // before the kernels), which every kernel after them may use.
    let mut file_dynamic = Vec::new();
    // `cu[from..to]`, outside the kernels' bodies: its `__shared__` declarations rewritten.
    let outside = |from: usize, to: usize, dynamic: &mut Vec<String>| {
        super::shared::shared_declarations(&cu[from..to], dynamic)
            .map_err(|(at, why)| format!("line {}: {why}", line_of(cu, from) + at - 1))
    };
    while let Some(global) = code.find("__global__", from) {
        from = global + "__global__".len();
        let before = global.checked_sub(1).map(|k| bytes[k]);
        if before.is_some_and(is_ident_byte) || bytes.get(from).copied().is_some_and(is_ident_byte)
        {
            continue;
        }
        let line = line_of(cu, global);
        let (name, open) = kernel_at(&code, global)?;
        let close = code.matching(open, b'(', b')').ok_or_else(|| {
            format!("line {line}: the parameters of kernel `{name}` are not closed")
        })?;
        let mut names = Vec::new();
        let mut params = Vec::new();
        for p in split_params(&cu[open + 1..close]) {
            match array_param(&p) {
                Some((ty, n)) => {
                    params.push(format!("gpucc_array<{ty}> {n}"));
                    names.push(n);
                }
                None if p.contains('*') || p.contains('[') || p.contains('&') => {
                    return Err(format!(
                        "line {line}: the check cannot instrument parameter `{p}` of kernel `{name}` (it takes `T *name`, `T (*name)[N]` and `T name[][N]`)"
                    ))
                }
                None => params.push(p),
            }
        }
        out.push_str(&outside(copied, open + 1, &mut file_dynamic)?);
        // The parameters on as many lines as they were written on.
        let params = params.join(", ");
        out.push_str(&params);
        out.push_str(&lines_lost(&cu[open..close], &params));
        let after = code
            .next_token(close + 1)
            .ok_or_else(|| format!("line {line}: kernel `{name}` has neither a body nor a `;`"))?;
        match bytes[after] {
            // A declaration: its parameters instrumented as the definition's are.
            b';' => {
                copied = close;
                from = after + 1;
            }
            b'{' => {
                let end = code.matching(after, b'{', b'}').ok_or_else(|| {
                    format!("line {line}: the body of kernel `{name}` is not closed")
                })?;
                out.push_str(&cu[close..after + 1]);
                for n in &names {
                    out.push_str(&format!(" {n}.gpucc_name = \"{n}\";"));
                }
                let body = outside(after + 1, end + 1, &mut file_dynamic.clone())?;
                out.push_str(&body);
                copied = end + 1;
                from = end + 1;
            }
            _ => {
                return Err(format!(
                    "line {line}: kernel `{name}` has neither a body nor a `;` after its parameters"
                ))
            }
        }
    }
    out.push_str(&outside(copied, cu.len(), &mut file_dynamic)?);
    Ok(out)
}

/// A parameter list split at its top-level commas (commas in brackets, comments and
/// strings do not split).
pub fn split_params(text: &str) -> Vec<String> {
    split_top_level(text, true)
}

/// `text` split at its top-level commas; `<` and `>` nest only with `angles` (in a
/// parameter list they are template brackets, in an expression comparisons).
fn split_top_level(text: &str, angles: bool) -> Vec<String> {
    let code = Code::new(text);
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i64, 0);
    for (k, b) in text.bytes().enumerate() {
        if !code.is_code(k) {
            continue;
        }
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'<' if angles => depth += 1,
            b'>' if angles => depth -= 1,
            b',' if depth == 0 => {
                parts.push(text[start..k].trim().to_string());
                start = k + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        parts.push(text[start..].trim().to_string());
    }
    parts
}

pub(super) fn is_ident(s: &str) -> bool {
    !s.is_empty() && !s.as_bytes()[0].is_ascii_digit() && s.bytes().all(is_ident_byte)
}

const QUALIFIERS: &[&str] = &[
    "const",
    "volatile",
    "__restrict__",
    "__restrict",
    "restrict",
];

/// A kernel's array parameter as (element type for `gpucc_array`, name):
/// `const float (*__restrict__ A)[N]` → (`const float[N]`, `A`); `float *y` → (`float`,
/// `y`); `float *const y` → (`float`, `y`); `float B[][16]` → (`float[16]`, `B`).
pub fn array_param(p: &str) -> Option<(String, String)> {
    let p = p.replace("__restrict__", " ");
    if let Some(star) = p.find("(*") {
        let close = star + p[star..].find(')')?;
        let name = p[star + 2..close].trim().to_string();
        let ty = p[..star].trim();
        let dims = p[close + 1..].trim();
        let ok = is_ident(&name) && !ty.is_empty() && (dims.is_empty() || dims.starts_with('['));
        return ok.then(|| (format!("{ty}{dims}"), name));
    }
    if let Some(bracket) = p.find('[') {
        // `T name[]...`: the first dimension is a pointer.
        let head = p[..bracket].trim_end();
        let name_start = trailing_ident_start(head);
        let (ty, name) = (head[..name_start].trim(), &head[name_start..]);
        let close = bracket + p[bracket..].find(']')?;
        let dims = p[close + 1..].trim();
        let ok = is_ident(name)
            && !ty.is_empty()
            && !ty.contains('*')
            && (dims.is_empty() || dims.starts_with('['));
        return ok.then(|| (format!("{ty}{dims}"), name.to_string()));
    }
    let star = p.rfind('*')?;
    let mut words: Vec<&str> = p[star + 1..].split_whitespace().collect();
    let name = words.pop()?;
    let ty = p[..star].trim();
    let ok = is_ident(name)
        && words.iter().all(|w| QUALIFIERS.contains(w))
        && !ty.is_empty()
        && !ty.contains('*');
    ok.then(|| (ty.to_string(), name.to_string()))
}

/// Whether the body of `__global__ void kernel(...) { ... }` in `cu` holds
/// `__syncthreads` or a warp shuffle (threads that meet need fibers); `true` when the
/// body cannot be found (fibers run every kernel correctly, only slower).
pub fn kernel_has_barriers(cu: &str, kernel: &str) -> bool {
    let code = Code::new(cu);
    let mut from = 0;
    while let Some(global) = code.find("__global__", from) {
        from = global + 1;
        let Ok((name, open)) = kernel_at(&code, global) else {
            continue;
        };
        if name != kernel {
            continue;
        }
        let Some(close) = code.matching(open, b'(', b')') else {
            return true;
        };
        let Some(brace) = code.next_token(close + 1) else {
            return true;
        };
        if cu.as_bytes()[brace] != b'{' {
            continue;
        }
        let Some(end) = code.matching(brace, b'{', b'}') else {
            return true;
        };
        let body = code.code_only(brace, end);
        return body.contains("__syncthreads") || body.contains("__shfl");
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_become_calls() {
        assert_eq!(
            rewrite_launches("  k<<<dim3(2, 8), dim3(16, 16)>>>(d_A, n);\n  x = a << 2;").unwrap(),
            "  gpucc_launch<true>(\"k\", k, dim3(2, 8), dim3(16, 16), 0, d_A, n);\n  x = a << 2;"
        );
        let cu = "__global__ void k(float *a) {\n  if (a) { a[0] = 1; }\n}\n__global__ void s(float *a) {\n  { __syncthreads(); }\n}\n";
        assert_eq!(
            rewrite_launches(&format!("{cu}k<<<1, 32>>>();")).unwrap(),
            format!("{cu}gpucc_launch<false>(\"k\", k, 1, 32, 0);")
        );
        assert_eq!(
            rewrite_launches(&format!("{cu}s<<<1, 32>>>(a);")).unwrap(),
            format!("{cu}gpucc_launch<true>(\"s\", s, 1, 32, 0, a);")
        );
        // Comments and strings are not launches; a stream is dropped.
        assert_eq!(
            rewrite_launches("// k<<<\nputs(\"<<<\");\nk <<<1, 2, 0, 0>>> ( a );").unwrap(),
            "// k<<<\nputs(\"<<<\");\ngpucc_launch<true>(\"k\", k, 1, 2, 0,  a );"
        );
        // A stream is dropped: the launches run in program order. Dynamic shared memory
        // is the runtime's to provide.
        assert_eq!(
            rewrite_launches("k<<<g, b, 0, stream>>>(a);").unwrap(),
            "gpucc_launch<true>(\"k\", k, g, b, 0, a);"
        );
        assert_eq!(
            rewrite_launches("k<<<g, b, n * sizeof(float)>>>(a);").unwrap(),
            "gpucc_launch<true>(\"k\", k, g, b, n * sizeof(float), a);"
        );
    }

    #[test]
    fn launches_the_runtime_cannot_run_are_said() {
        for (cu, expected) in [
            (
                "k<<<1, 2>>>",
                "line 1: a launch's `>>>` is not followed by `(`",
            ),
            ("\nk<<<1, 2", "line 2: a launch `<<<` has no `>>>`"),
            ("(<<<1, 2>>>(a);", "cannot read the name of the kernel"),
            ("k<<<1>>>(a);", "needs a grid and a block"),
        ] {
            let e = rewrite_launches(cu).unwrap_err();
            assert!(e.contains(expected), "{cu}: {e}");
        }
    }

    #[test]
    fn kernels_are_instrumented_on_their_own_lines() {
        let cu = "__global__ void k(const float (*__restrict__ A)[N + 1], float *__restrict__ y, int n)\n{\n  __shared__ float s[16][17];\n  y[0] = A[0][n];\n}\nvoid host(void) { int z[3]; }\n";
        assert_eq!(
            instrument(cu).unwrap(),
            "__global__ void k(gpucc_array<const float[N + 1]> A, gpucc_array<float> y, int n)\n{ A.gpucc_name = \"A\"; y.gpucc_name = \"y\";\n  __shared__ gpucc_shared<float[16][17]> s(\"s\");\n  y[0] = A[0][n];\n}\nvoid host(void) { int z[3]; }\n"
        );
        let two_lines = "__global__ void k(float *a,\n  float *b);\n__global__ void k(float *a,\n  float *b) { __shared__ float u[2], v[3]; }";
        let done = instrument(two_lines).unwrap();
        assert_eq!(done.lines().count(), two_lines.lines().count(), "{done}");
        assert!(
            done.contains("gpucc_array<float> a, gpucc_array<float> b\n);"),
            "{done}"
        );
        assert!(
            done.contains("__shared__ gpucc_shared<float[2]> u(\"u\"); __shared__ gpucc_shared<float[3]> v(\"v\");"),
            "{done}"
        );
    }

    #[test]
    fn shared_memory_at_file_scope_is_instrumented_for_every_kernel() {
        // Declared before the kernels: each kernel sees the dynamic array, and the tiles
        // carved out of it are tracked; a kernel's own `extern` stays its own.
        let cu = "extern __shared__ float d[];\n__shared__ int s[4];\n__global__ void k(int n)\n{\n  float (&t)[8] = *reinterpret_cast<float (*)[8]>(d + 0);\n}\n__global__ void m(int n) { extern __shared__ char e[]; }\n__global__ void q(int n) { int (&u)[2] = *reinterpret_cast<int (*)[2]>(e + 0); }\n";
        let done = instrument(cu).unwrap();
        assert_eq!(done.lines().count(), cu.lines().count(), "{done}");
        for expected in [
            "gpucc_dynamic<float> d(\"d\");\n__shared__ gpucc_shared<int[4]> s(\"s\");\n",
            "gpucc_shared_at<float[8]> t(\"t\", d, 0);",
            "{ gpucc_dynamic<char> e(\"e\"); }",
            "int (&u)[2] = *reinterpret_cast<int (*)[2]>(e + 0);",
        ] {
            assert!(done.contains(expected), "no `{expected}` in\n{done}");
        }
    }

    #[test]
    fn kernels_the_runtime_cannot_instrument_are_said() {
        for (cu, expected) in [
            (
                "__global__ void k(float *a",
                "line 1: the parameters of kernel `k` are not closed",
            ),
            (
                "__global__ void k(float *a) {",
                "the body of kernel `k` is not closed",
            ),
            (
                "\n__global__ int k(float *a) {}",
                "line 2: the check cannot read this kernel",
            ),
            (
                "__global__ void k(float **a) {}",
                "cannot instrument parameter `float **a`",
            ),
            (
                "__global__ void k(float *a) {\n\n __shared__ float d[]; }",
                "line 3: `d` has no size",
            ),
            (
                "__global__ void k(float *a) { __shared__ float d[3] }",
                "has no `;`",
            ),
        ] {
            let e = instrument(cu).unwrap_err();
            assert!(e.contains(expected), "{cu}: {e}");
        }
    }

    #[test]
    fn array_parameters() {
        let p = |s: &str| array_param(s).map(|(t, n)| format!("{t} | {n}"));
        assert_eq!(p("float *y").as_deref(), Some("float | y"));
        assert_eq!(
            p("const float *const __restrict__ y").as_deref(),
            Some("const float | y")
        );
        assert_eq!(p("float B[][16]").as_deref(), Some("float[16] | B"));
        assert_eq!(p("double (*A)[N]").as_deref(), Some("double[N] | A"));
        assert_eq!(p("int n"), None);
        assert_eq!(p("float **a"), None);
        assert_eq!(p("*"), None);
        assert_eq!(p("(*)"), None);
    }

    #[test]
    fn barriers_are_found_in_the_kernels_own_body() {
        let cu = "__global__ void a(float *x) { /* __syncthreads() */ }\n__global__ void __launch_bounds__(64) b(float *x) { __syncthreads(); }";
        assert!(!kernel_has_barriers(cu, "a"));
        assert!(kernel_has_barriers(cu, "b"));
        assert!(kernel_has_barriers(cu, "missing"));
    }

    #[test]
    fn brackets_in_comments_and_strings_do_not_count() {
        let text = "{ '}' \"}\" /* } */ // }\n }";
        assert_eq!(
            Code::new(text).matching(0, b'{', b'}'),
            Some(text.len() - 1)
        );
        assert_eq!(Code::new("}{").matching(0, b'{', b'}'), None);
        assert_eq!(Code::new("{").matching(0, b'{', b'}'), None);
    }
}
