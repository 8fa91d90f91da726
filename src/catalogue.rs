//! The one way a catalogue of parameterised variants is listed (issue 34: "a new loss lands as one
//! file and one list line"): [`variants!`], used by the losses (`losses/mod.rs`) and paper A's
//! tensor kernels (`tensor/kernel/mod.rs`). Each variant is a type in its own file implementing
//! the catalogue's trait, which has no default method and declares `const DEFAULT: Self`; the
//! list line names the variant, its fields (the type's, same names and types) and the file. The
//! pair kernels wrap their types in tuple variants and have their own `catalogue!`
//! (kernels/mod.rs).

/// Generate, from one line per variant (`Name { field: type, … } => file::Type,`, a doc comment
/// and an optional `#[cfg(…)]` before it):
/// - `mod file;` and `pub use file::Type;` for each line;
/// - the spec's enum with the attributes given (a field-less line is a unit variant), read
///   through a private strict form whose every variant is a struct variant: serde's
///   `deny_unknown_fields` does not reach a unit variant of an internally tagged enum
///   (`{"kind": "linear", "x": 1}` would pass), so the enum must carry
///   `#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields, from = "strict::Strict")]`;
/// - `ALL`, every variant with its type's `DEFAULT`;
/// - two dispatch macros, named by the caller (`fixed NAME in module::path` gives the second one
///   the enum's module, so it works anywhere in the crate): `$dispatch!(value, d => body)` runs `body` with `d`
///   the variant's type built from its fields (a `*value` match), and
///   `$fixed!(value, v => body)` with `v` a copy of the enum whose variant is known at compile
///   time (so a `match` on it folds away inside a hot loop).
///
/// `$dol` is a `$` passed in by the caller, so the dispatch macros written here can name their
/// own arguments.
macro_rules! variants {
    (
        $dol:tt
        $(#[$meta:meta])*
        pub enum $E:ident: $Def:ident, dispatch $dispatch:ident, fixed $fixed:ident in $($m:ident)::+ {
            $(
                $(#[doc = $doc:literal])*
                $(#[cfg($c:meta)])?
                $V:ident $({ $($f:ident: $t:ty),* })? => $file:ident::$T:ident,
            )*
        }
    ) => {
        $($(#[cfg($c)])? mod $file;)*
        $($(#[cfg($c)])? pub use $file::$T;)*

        $(#[$meta])*
        pub enum $E {
            $(
                $(#[doc = $doc])*
                $(#[cfg($c)])?
                $V $({ $($f: $t),* })?,
            )*
        }

        /// The spec's form of the enum, read strictly: every variant a struct variant, so an
        /// unknown field is an error naming it.
        mod strict {
            #[allow(unused_imports)]
            use super::*;

            #[derive(serde::Deserialize)]
            #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
            pub enum Strict {
                $($(#[cfg($c)])? $V { $($($f: $t),*)? },)*
            }

            impl From<Strict> for super::$E {
                fn from(s: Strict) -> Self {
                    match s {
                        $($(#[cfg($c)])? Strict::$V { $($($f),*)? } => Self::$V { $($($f),*)? },)*
                    }
                }
            }
        }

        impl $E {
            /// Every variant, with its type's default parameters.
            pub const ALL: &'static [$E] = &[$(
                $(#[cfg($c)])?
                $E::$V { $($($f: <$T as $Def>::DEFAULT.$f),*)? },
            )*];
        }

        /// Run `$body` with `$d` bound to the variant's own type: the one dispatch from the
        /// spec's enum to the variant's file.
        #[allow(unused_macros)]
        macro_rules! $dispatch {
            ($dol value:expr, $dol d:ident => $dol body:expr) => {
                match *$dol value {
                    $($(#[cfg($c)])? $E::$V { $($($f),*)? } => {
                        let $dol d = $T { $($($f),*)? };
                        $dol body
                    })*
                }
            };
        }

        /// Run `$body` with `$v` bound to a copy of `$value` whose variant is known at compile
        /// time, so a `match` on it folds away inside a hot loop.
        #[allow(unused_macros)]
        macro_rules! $fixed {
            ($dol value:expr, $dol v:ident => $dol body:expr) => {{
                #[allow(unused_imports)]
                use $dol crate$(::$m)+::$E;
                match $dol value {
                    $($(#[cfg($c)])? $E::$V { $($($f),*)? } => {
                        let $dol v = $E::$V { $($($f),*)? };
                        $dol body
                    })*
                }
            }};
        }
    };
}
pub(crate) use variants;
