//! User-facing diagnostics: a span in a source file, a message, labels, notes and a hint,
//! rendered like rustc (`file:line:col`, the source line, a caret).
//!
//! Every stage reports user errors as [`Diagnostic`]s; the driver renders them with
//! [`render`]. Internal errors (broken invariants that are not the user's fault) are
//! diagnostics with [`Severity::Bug`], so that they too end in a message and an exit code
//! rather than a panic.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label as CsLabel};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, termcolor};

/// A half-open byte range `[start, end)` in one source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The smallest span that covers both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SourceId(pub usize);

/// One source file as read (invalid UTF-8 replaced), with its name for messages.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let start = self.line_starts[line];
        let col = self.text[start..]
            .char_indices()
            .take_while(|(i, _)| start + i < offset)
            .count();
        (line + 1, col + 1)
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        self.line_col(offset).0
    }

    /// The text of a span, with runs of white space folded to one space.
    pub fn snippet(&self, span: Span) -> String {
        let text = self.text.get(span.start..span.end).unwrap_or("");
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// The files a diagnostic may point into (the C file, later recipe files).
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn add(&mut self, file: SourceFile) -> SourceId {
        self.files.push(file);
        SourceId(self.files.len() - 1)
    }

    pub fn get(&self, id: SourceId) -> &SourceFile {
        &self.files[id.0]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    /// An internal error: gpucc's fault, not the input's.
    Bug,
}

/// A label on a span: the primary one says what is wrong, secondary ones give context.
#[derive(Clone, Debug)]
pub struct Label {
    pub source: SourceId,
    pub span: Span,
    pub message: String,
    pub primary: bool,
}

/// One message to the user.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    pub labels: Vec<Label>,
    pub notes: Vec<String>,
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error at `span` of the source `source`.
    pub fn error(source: SourceId, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            labels: vec![Label {
                source,
                span,
                message: String::new(),
                primary: true,
            }],
            notes: Vec::new(),
            hint: None,
        }
    }

    /// An error that has no place in a file (an empty input, a missing option).
    pub fn error_nowhere(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
            hint: None,
        }
    }

    /// A warning at `span`.
    pub fn warning(source: SourceId, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(source, span, message)
        }
    }

    /// An internal error: an invariant of gpucc did not hold.
    pub fn bug(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Bug,
            message: message.into(),
            labels: Vec::new(),
            notes: vec!["this is a bug in gpucc, not in your input; please report it".into()],
            hint: None,
        }
    }

    /// Sets the message of the primary label (the text beside the caret).
    pub fn with_label(mut self, message: impl Into<String>) -> Diagnostic {
        if let Some(label) = self.labels.iter_mut().find(|l| l.primary) {
            label.message = message.into();
        }
        self
    }

    /// Adds a secondary label (context elsewhere in a file).
    pub fn with_secondary(
        mut self,
        source: SourceId,
        span: Span,
        message: impl Into<String>,
    ) -> Diagnostic {
        self.labels.push(Label {
            source,
            span,
            message: message.into(),
            primary: false,
        });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// The primary span, if the diagnostic has a place.
    pub fn primary_span(&self) -> Option<(SourceId, Span)> {
        self.labels
            .iter()
            .find(|l| l.primary)
            .map(|l| (l.source, l.span))
    }
}

/// What a stage returns when the input is refused: all the diagnostics it found.
pub type Diagnostics = Vec<Diagnostic>;

/// Renders diagnostics as text, like rustc; `color` for a terminal.
pub fn render(sources: &SourceMap, diagnostics: &[Diagnostic], color: bool) -> String {
    let mut files = SimpleFiles::new();
    for file in &sources.files {
        files.add(file.name.clone(), file.text.clone());
    }
    let config = term::Config {
        chars: term::Chars::ascii(),
        ..term::Config::default()
    };
    let mut out = if color {
        termcolor::Buffer::ansi()
    } else {
        termcolor::Buffer::no_color()
    };
    for diagnostic in diagnostics {
        let cs = to_codespan(sources, diagnostic);
        if term::emit(&mut out, &config, &files, &cs).is_err() {
            // A span outside its file is an internal error; show the message anyway.
            use std::io::Write;
            writeln!(out, "error: {}", diagnostic.message).ok();
        }
    }
    String::from_utf8_lossy(out.as_slice()).into_owned()
}

fn to_codespan(sources: &SourceMap, d: &Diagnostic) -> CsDiagnostic<usize> {
    let base = match d.severity {
        Severity::Error => CsDiagnostic::error(),
        Severity::Warning => CsDiagnostic::warning(),
        Severity::Bug => CsDiagnostic::bug(),
    };
    let labels = d
        .labels
        .iter()
        .map(|l| {
            let len = sources.get(l.source).text.len();
            let range = l.span.start.min(len)..l.span.end.min(len).max(l.span.start.min(len));
            let label = if l.primary {
                CsLabel::primary(l.source.0, range)
            } else {
                CsLabel::secondary(l.source.0, range)
            };
            label.with_message(l.message.clone())
        })
        .collect();
    let mut notes = d.notes.clone();
    if let Some(hint) = &d.hint {
        notes.push(format!("hint: {hint}"));
    }
    base.with_message(d.message.clone())
        .with_labels(labels)
        .with_notes(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let f = SourceFile::new("a.c", "ab\ncd\n");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(1), (1, 2));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(100), (3, 1));
    }

    #[test]
    fn rendering_shows_file_line_col_caret_and_hint() {
        let mut map = SourceMap::default();
        let id = map.add(SourceFile::new("k.c", "int x;\nwhile (1) {}\n"));
        let d = Diagnostic::error(id, Span::new(7, 12), "`while` is not supported")
            .with_label("this loop")
            .with_hint("use a `for` loop");
        let text = render(&map, &[d], false);
        assert!(text.contains("k.c:2:1"), "{text}");
        assert!(text.contains("^^^^^ this loop"), "{text}");
        assert!(text.contains("hint: use a `for` loop"), "{text}");
    }
}
