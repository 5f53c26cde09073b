//! Values of the recipe language. Strings and tables are shared (`Rc`), so that copying a
//! value never copies its contents: the memory a recipe holds is the memory it built, which
//! the interpreter charges to its budget ([`super::budget`]). Nothing here recurses on a
//! value's nesting (a table of tables a million deep is printed and dropped in a loop).

use std::rc::Rc;

/// A value of the recipe language.
#[derive(Clone, Debug)]
pub enum Value {
    Nil,
    Bool(bool),
    Num(f64),
    Str(Rc<str>),
    Table(Rc<Table>),
}

/// As in Lua: strings are equal by contents, tables only to themselves.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Nil, Value::Nil) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Num(a), Value::Num(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Table(a), Value::Table(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// A Lua table: positional values (`{a, b}`) and named fields (`{x = 1}`).
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub array: Vec<Value>,
    pub fields: Vec<(Rc<str>, Value)>,
}

impl Table {
    pub fn field(&self, name: &str) -> Option<&Value> {
        self.fields
            .iter()
            .find(|(n, _)| &**n == name)
            .map(|(_, v)| v)
    }

    /// Positional values and named fields.
    pub fn entries(&self) -> usize {
        self.array.len() + self.fields.len()
    }

    /// Moves the tables this table holds into `out`.
    fn take_tables(&mut self, out: &mut Vec<Rc<Table>>) {
        let fields = self.fields.drain(..).map(|(_, v)| v);
        for v in self.array.drain(..).chain(fields) {
            if let Value::Table(t) = v {
                out.push(t);
            }
        }
    }
}

/// Drops nested tables one after another: the derived drop would recurse once per level
/// and overflow the stack on a deep table.
impl Drop for Table {
    fn drop(&mut self) {
        let mut pending = Vec::new();
        self.take_tables(&mut pending);
        while let Some(t) = pending.pop() {
            // A table still shared elsewhere stays; the last holder empties it here, so
            // its own drop finds nothing to recurse into.
            if let Ok(mut t) = Rc::try_unwrap(t) {
                t.take_tables(&mut pending);
            }
        }
    }
}

impl Value {
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "a boolean",
            Value::Num(_) => "a number",
            Value::Str(_) => "a string",
            Value::Table(_) => "a table",
        }
    }

    pub fn truthy(&self) -> bool {
        !matches!(self, Value::Nil | Value::Bool(false))
    }

    pub fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }

    /// As Lua's `tostring` would write a string or a number (integers without `.0`);
    /// `None` for other values.
    pub fn scalar_text(&self) -> Option<String> {
        match self {
            Value::Num(v) => Some(number_text(*v)),
            Value::Str(s) => Some(s.to_string()),
            _ => None,
        }
    }

    /// The text `print` writes (tables as `{1, 2, x=3}`), or `Err(length)` as soon as it
    /// grows past `most` bytes (a table that holds a table twice, nested 40 times, would
    /// print 2^40 copies).
    pub fn text(&self, most: usize) -> Result<String, usize> {
        enum Piece<'v> {
            Value(&'v Value),
            Field(&'v str, &'v Value),
            Text(&'static str),
        }
        let mut out = String::new();
        let mut pending = vec![Piece::Value(self)];
        while let Some(piece) = pending.pop() {
            match piece {
                Piece::Text(s) => out.push_str(s),
                Piece::Field(name, v) => {
                    out.push_str(name);
                    out.push('=');
                    pending.push(Piece::Value(v));
                }
                Piece::Value(Value::Nil) => out.push_str("nil"),
                Piece::Value(Value::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
                Piece::Value(Value::Num(v)) => out.push_str(&number_text(*v)),
                Piece::Value(Value::Str(s)) => {
                    if out.len() + s.len() > most {
                        return Err(out.len() + s.len());
                    }
                    out.push_str(s);
                }
                Piece::Value(Value::Table(t)) => {
                    out.push('{');
                    pending.push(Piece::Text("}"));
                    let items: Vec<Piece> = t
                        .array
                        .iter()
                        .map(Piece::Value)
                        .chain(t.fields.iter().map(|(n, v)| Piece::Field(n, v)))
                        .collect();
                    for (k, item) in items.into_iter().enumerate().rev() {
                        pending.push(item);
                        if k > 0 {
                            pending.push(Piece::Text(", "));
                        }
                    }
                }
            }
            if out.len() > most {
                return Err(out.len());
            }
        }
        Ok(out)
    }
}

pub fn number_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(array: Vec<Value>, fields: Vec<(&str, Value)>) -> Value {
        Value::Table(Rc::new(Table {
            array,
            fields: fields.into_iter().map(|(n, v)| (Rc::from(n), v)).collect(),
        }))
    }

    #[test]
    fn text_as_lua_prints_it() {
        let t = table(
            vec![Value::Num(1.0), Value::str("a"), table(vec![], vec![])],
            vec![("x", Value::Num(2.5)), ("y", Value::Bool(true))],
        );
        assert_eq!(t.text(100).unwrap(), "{1, a, {}, x=2.5, y=true}");
        assert_eq!(
            table(vec![], vec![("k", Value::Nil)]).text(100).unwrap(),
            "{k=nil}"
        );
        assert_eq!(t.text(10), Err(11));
    }

    #[test]
    fn deep_and_shared_tables_neither_recurse_nor_explode() {
        let mut t = table(vec![], vec![]);
        for _ in 0..1_000_000 {
            t = table(vec![t], vec![]);
        }
        assert!(t.text(1 << 20).is_err());
        drop(t);
        let mut t = Value::str("x");
        for _ in 0..64 {
            t = table(vec![t.clone(), t], vec![]);
        }
        assert!(t.text(1000).is_err());
        assert_eq!(t, t.clone());
        assert_ne!(table(vec![], vec![]), table(vec![], vec![]));
    }
}
