package dev.codexclient.apicheck;

import java.util.ArrayList;
import java.util.List;

/**
 * Descriptors and generic signatures (JVMS 4.3 and 4.7.9.1) as the Java sources spell the types:
 * {@code Ljava/util/Map<TK;+Ljava/util/List<*>;>;} reads {@code java.util.Map<K, ? extends java.util.List<?>>}.
 */
final class Signatures {
    private Signatures() {
    }

    /** A position in a signature. */
    static final class Cursor {
        private final String text;
        private int at;

        Cursor(String text) {
            this.text = text;
        }

        boolean done() {
            return at >= text.length();
        }

        char peek() {
            return text.charAt(at);
        }

        char next() {
            return text.charAt(at++);
        }

        void expect(char c) {
            if (done() || next() != c) {
                throw new IllegalArgumentException("malformed signature, expected '" + c + "' at " + (at - 1) + ": "
                        + text);
            }
        }

        String until(String stops) {
            int start = at;
            while (stops.indexOf(peek()) < 0) {
                at++;
            }
            return text.substring(start, at);
        }
    }

    /** {@code <T:Ljava/lang/Object;U::Ljava/lang/Comparable<TU;>;>} as {@code <T, U extends java.lang.Comparable<U>>}. */
    static String typeParameters(Cursor s) {
        if (s.done() || s.peek() != '<') {
            return "";
        }
        s.expect('<');
        List<String> parameters = new ArrayList<>();
        while (s.peek() != '>') {
            String name = s.until(":");
            List<String> bounds = new ArrayList<>();
            while (!s.done() && s.peek() == ':') {
                s.expect(':');
                if (s.peek() != ':' && s.peek() != '>' && "LT[".indexOf(s.peek()) >= 0) {
                    String bound = referenceType(s);
                    if (!bound.equals("java.lang.Object")) {
                        bounds.add(bound);
                    }
                }
            }
            parameters.add(bounds.isEmpty() ? name : name + " extends " + String.join(" & ", bounds));
        }
        s.expect('>');
        return "<" + String.join(", ", parameters) + ">";
    }

    /** Any type: a primitive, {@code void}, or a reference type. */
    static String javaType(Cursor s) {
        char c = s.peek();
        String primitive = switch (c) {
            case 'B' -> "byte";
            case 'C' -> "char";
            case 'D' -> "double";
            case 'F' -> "float";
            case 'I' -> "int";
            case 'J' -> "long";
            case 'S' -> "short";
            case 'Z' -> "boolean";
            case 'V' -> "void";
            default -> null;
        };
        if (primitive != null) {
            s.next();
            return primitive;
        }
        return referenceType(s);
    }

    /** A class type (with its type arguments and inner classes), a type variable or an array. */
    static String referenceType(Cursor s) {
        char c = s.next();
        switch (c) {
            case 'T' -> {
                String name = s.until(";");
                s.expect(';');
                return name;
            }
            case '[' -> {
                return javaType(s) + "[]";
            }
            case 'L' -> {
                StringBuilder b = new StringBuilder();
                while (true) {
                    b.append(ApiDump.dots(s.until("<.;")));
                    if (s.peek() == '<') {
                        s.expect('<');
                        List<String> arguments = new ArrayList<>();
                        while (s.peek() != '>') {
                            char w = s.peek();
                            if (w == '*') {
                                s.next();
                                arguments.add("?");
                            } else if (w == '+' || w == '-') {
                                s.next();
                                arguments.add((w == '+' ? "? extends " : "? super ") + referenceType(s));
                            } else {
                                arguments.add(referenceType(s));
                            }
                        }
                        s.expect('>');
                        b.append('<').append(String.join(", ", arguments)).append('>');
                    }
                    if (s.peek() == '.') {
                        s.next();
                        b.append('.');
                        continue;
                    }
                    s.expect(';');
                    return b.toString();
                }
            }
            default -> throw new IllegalArgumentException("malformed signature at '" + c + "'");
        }
    }
}
