"""Keyword lists of the weighted n-gram component, one tuple per language.

A token listed here weighs 1 in the weighted unigram match, any other token 0.2. The lists for
the ten languages of the `codebleu` package are the ones it ships (same entries, same order),
so the weighted component is identical; TypeScript extends the JavaScript list with the
keywords of TypeScript (the package has no TypeScript).

The languages the package does not have (Kotlin, Swift, Scala, Lua, Bash, Haskell, Julia)
take the keywords of their language reference, named above each list: every reserved word and,
as the package's lists do for C#, Python and TypeScript, the contextual (soft) keywords.
Tokens are whitespace-separated words, so purely symbolic reserved tokens (Scala's ``<-``,
Haskell's ``->``, Bash's ``[[``) are left out, as the package's lists leave out operators.
"""

from __future__ import annotations

_C = tuple(
    (
        "auto else long switch break enum register typedef case extern return union char float "
        "short unsigned const for signed void continue goto sizeof volatile default if static "
        "while do int struct _Packed double"
    ).split()
)
_C_SHARP = tuple(
    (
        "abstract as base bool break byte case catch char checked class const continue decimal "
        "default delegate do double else enum event explicit extern false finally fixed float for "
        "foreach goto if implicit in int interface internal is lock long namespace new null "
        "object operator out override params private protected public readonly ref return sbyte "
        "sealed short sizeof stackalloc static string struct switch this throw true try typeof "
        "uint ulong unchecked unsafe ushort using virtual void volatile while add alias ascending "
        "async await by descending dynamic equals from get global group into join let nameof "
        "notnull on orderby partial remove select set unmanaged value var when where yield"
    ).split()
)
_CPP = tuple(
    (
        "auto const double float int short struct unsigned break continue else for long signed "
        "switch void case default enum goto register sizeof typedef volatile char do extern if "
        "return static union while asm dynamic_cast namespace reinterpret_cast bool explicit new "
        "static_cast typeid catch false try operator template typename class friend private this "
        "using const_cast inline public throw virtual delete mutable protected true wchar_t and "
        "bitand compl not_eq or_eq xor_eq and_eq bitor not or xor cin endl INT_MIN iomanip main "
        "npos std cout include INT_MAX iostream MAX_RAND NULL string"
    ).split()
)
_GO = tuple(
    (
        "break default func interface select case defer go map struct chan else goto package "
        "switch const fallthrough if range type continue for import return var false true"
    ).split()
)
_JAVA = tuple(
    (
        "abstract assert boolean break byte case catch char class const continue default do "
        "double else enum extends final finally float for goto if implements import instanceof "
        "int interface long native new package private protected public return short static "
        "strictfp super switch synchronized this throw throws transient try void volatile while"
    ).split()
)
_JAVASCRIPT = tuple(
    (
        "await break case catch class const continue debugger default delete do else enum export "
        "extends false finally for function if implements import in instanceof interface let new "
        "null package private protected public return super switch static this throw try True "
        "typeof var void while with yield"
    ).split()
)
_PHP = tuple(
    (
        "__halt_compiler abstract and array as break callable case catch class clone const "
        "continue declare default die do echo else elseif empty enddeclare endfor endforeach "
        "endif endswitch endwhile eval exit extends final for foreach function global goto if "
        "implements include include_once instanceof insteadof interface isset list namespace new "
        "or print private protected public require require_once return static switch throw trait "
        "try unset use var while xor"
    ).split()
)
_PYTHON = tuple(
    (
        "False None True and as assert async await break class continue def del elif else except "
        "finally for from global if import in is lambda nonlocal not or pass raise return try "
        "while with yield match case type"
    ).split()
)
_RUBY = tuple(
    (
        "__ENCODING__ __LINE__ __FILE__ BEGIN END alias and begin break case class def defined? "
        "do else elsif end ensure false for if in module next nil not or redo rescue retry return "
        "self super then true undef unless until when while yield"
    ).split()
)
_RUST = tuple(
    (
        "as async await block bool break char const continue crate default dyn else enum expr "
        "extern f32 f64 false fn for i128 i16 i32 i64 i8 ident if impl in isize item let lifetime "
        "literal loop macro_rules! match meta mod move mut pat path pub ref return self static "
        "stmt str struct super trait true tt ty type u128 u16 u32 u64 u8 union unsafe use usize "
        "vis where while yield"
    ).split()
)
_TYPESCRIPT = _JAVASCRIPT + tuple(
    "true abstract any as asserts boolean declare enum implements infer interface is keyof module "
    "namespace never number object override private protected public readonly satisfies string "
    "symbol type undefined unique unknown".split()
)

# Kotlin language documentation, "Keywords and operators"
# (https://kotlinlang.org/docs/keyword-reference.html): hard, soft and modifier keywords and
# the special identifiers.
_KOTLIN = tuple(
    (
        "as as? break class continue do else false for fun if in !in interface is !is null "
        "object package return super this throw true try typealias typeof val var when while "
        "by catch constructor delegate dynamic field file finally get import init param "
        "property receiver set setparam value where abstract actual annotation companion const "
        "crossinline data enum expect external final infix inline inner internal lateinit "
        "noinline open operator out override private protected public reified sealed suspend "
        "tailrec vararg it"
    ).split()
)
# The Swift Programming Language, "Lexical Structure", Keywords and Punctuation
# (https://docs.swift.org/swift-book/documentation/the-swift-programming-language/lexicalstructure/):
# keywords of declarations, statements, expressions and types, patterns, those beginning with
# a number sign, and those reserved in particular contexts.
_SWIFT = tuple(
    (
        "associatedtype borrowing class consuming deinit enum extension fileprivate func import "
        "init inout internal let nonisolated open operator private precedencegroup protocol "
        "public rethrows static struct subscript typealias var break case catch continue "
        "default defer do else fallthrough for guard if in repeat return throw switch where "
        "while Any as await false is nil self Self super throws true try _ #available "
        "#colorLiteral #else #elseif #endif #fileLiteral #if #imageLiteral #keyPath #selector "
        "#sourceLocation #unavailable associativity convenience didSet dynamic final get "
        "indirect infix lazy left mutating none nonmutating optional override package postfix "
        "precedence prefix Protocol required right set some Type unowned weak willSet"
    ).split()
)
# Scala 3 language reference, "Lexical Syntax", Keywords
# (https://docs.scala-lang.org/scala3/reference/syntax.html): regular and soft keywords.
_SCALA = tuple(
    (
        "abstract case catch class def do else enum export extends false final finally for "
        "given if implicit import lazy match new null object override package private "
        "protected return sealed super then throw trait true try type val var while with yield "
        "as derives end extension infix inline opaque open transparent using"
    ).split()
)
# Lua 5.4 Reference Manual, section 3.1 "Lexical Conventions"
# (https://www.lua.org/manual/5.4/manual.html#3.1): the reserved keywords.
_LUA = tuple(
    (
        "and break do else elseif end false for function goto if in local nil not or repeat "
        "return then true until while"
    ).split()
)
# Bash Reference Manual, section 3.2.1 "Reserved Words"
# (https://www.gnu.org/software/bash/manual/bash.html#Reserved-Words).
_BASH = tuple(
    "if then elif else fi time for in until while do done case esac coproc select function"
    .split()
)
# Haskell 2010 Language Report, section 2.4 "Identifiers and Operators"
# (https://www.haskell.org/onlinereport/haskell2010/haskellch2.html#x7-180002.4): reservedid,
# and the identifiers with a special meaning in import declarations (as, qualified, hiding).
_HASKELL = tuple(
    (
        "case class data default deriving do else foreign if import in infix infixl infixr "
        "instance let module newtype of then type where _ as qualified hiding"
    ).split()
)
# Julia manual, "Keywords" (https://docs.julialang.org/en/v1/base/base/#Keywords): the reserved
# keywords, the words of the two-word keywords (abstract type, mutable struct, primitive
# type) and the contextual ones.
_JULIA = tuple(
    (
        "baremodule begin break catch const continue do else elseif end export false finally "
        "for function global if import let local macro module quote return struct true try "
        "using while abstract mutable primitive type where in isa outer as"
    ).split()
)

KEYWORDS: dict[str, tuple[str, ...]] = {
    "c": _C,
    "c_sharp": _C_SHARP,
    "cpp": _CPP,
    "go": _GO,
    "java": _JAVA,
    "javascript": _JAVASCRIPT,
    "php": _PHP,
    "python": _PYTHON,
    "ruby": _RUBY,
    "rust": _RUST,
    "typescript": _TYPESCRIPT,
    "kotlin": _KOTLIN,
    "swift": _SWIFT,
    "scala": _SCALA,
    "lua": _LUA,
    "bash": _BASH,
    "haskell": _HASKELL,
    "julia": _JULIA,
}
