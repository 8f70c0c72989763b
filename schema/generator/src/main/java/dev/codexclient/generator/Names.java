package dev.codexclient.generator;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Java naming rules for wire names: type, variant, field, constant and method names. */
final class Names {
    private Names() {
    }

    static final Set<String> KEYWORDS = Set.of(
            "abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const", "continue",
            "default", "do", "double", "else", "enum", "extends", "final", "finally", "float", "for", "goto", "if",
            "implements", "import", "instanceof", "int", "interface", "long", "native", "new", "package", "private",
            "protected", "public", "return", "short", "static", "strictfp", "super", "switch", "synchronized", "this",
            "throw", "throws", "transient", "try", "void", "volatile", "while", "true", "false", "null", "var",
            "record", "yield", "sealed", "permits", "_");

    /** Splits on non-alphanumerics; keeps the case inside parts. */
    static List<String> parts(String wire) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (char c : wire.toCharArray()) {
            if (Character.isLetterOrDigit(c) && c < 128) {
                cur.append(c);
            } else if (cur.length() > 0) {
                out.add(cur.toString());
                cur.setLength(0);
            }
        }
        if (cur.length() > 0) {
            out.add(cur.toString());
        }
        return out;
    }

    /** {@code thread/start} → {@code ThreadStart}, {@code input_text} → {@code InputText}. */
    static String pascal(String wire) {
        StringBuilder sb = new StringBuilder();
        for (String p : parts(wire)) {
            sb.append(Character.toUpperCase(p.charAt(0))).append(p, 1, p.length());
        }
        if (sb.length() == 0) {
            throw new GeneratorException("cannot derive a type name from '" + wire + "'");
        }
        if (Character.isDigit(sb.charAt(0))) {
            sb.insert(0, 'V');
        }
        return sb.toString();
    }

    /** {@code _meta} → {@code meta}, {@code otlp-http} → {@code otlpHttp}, {@code default} → {@code default_}. */
    static String field(String wire) {
        List<String> ps = parts(wire);
        if (ps.isEmpty()) {
            throw new GeneratorException("cannot derive a field name from '" + wire + "'");
        }
        StringBuilder sb = new StringBuilder();
        String first = ps.get(0);
        sb.append(Character.toLowerCase(first.charAt(0))).append(first, 1, first.length());
        for (int i = 1; i < ps.size(); i++) {
            String p = ps.get(i);
            sb.append(Character.toUpperCase(p.charAt(0))).append(p, 1, p.length());
        }
        String s = sb.toString();
        if (Character.isDigit(s.charAt(0))) {
            s = "_" + s;
        }
        return KEYWORDS.contains(s) ? s + "_" : s;
    }

    /** {@code thread/start} → {@code threadStart} (method names of the facade). */
    static String lowerCamel(String pascal) {
        String s = Character.toLowerCase(pascal.charAt(0)) + pascal.substring(1);
        return KEYWORDS.contains(s) ? s + "_" : s;
    }

    /** {@code on-request} → {@code ON_REQUEST}, {@code acceptForSession} → {@code ACCEPT_FOR_SESSION}. */
    static String constant(String wire) {
        StringBuilder sb = new StringBuilder();
        char prev = 0;
        for (char c : wire.toCharArray()) {
            boolean alnum = Character.isLetterOrDigit(c) && c < 128;
            if (!alnum) {
                sb.append('_');
            } else {
                if (Character.isUpperCase(c) && prev != 0 && (Character.isLowerCase(prev) || Character.isDigit(prev))) {
                    sb.append('_');
                }
                sb.append(Character.toUpperCase(c));
            }
            prev = alnum ? c : 0;
        }
        String s = sb.toString().replaceAll("_+", "_").replaceAll("^_|_$", "");
        if (s.isEmpty()) {
            s = "EMPTY";
        }
        if (Character.isDigit(s.charAt(0))) {
            s = "_" + s;
        }
        return s.toUpperCase(Locale.ROOT);
    }
}
