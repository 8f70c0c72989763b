package dev.codexclient.apicheck;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a class file says of its public API, read straight from its bytes (JVMS chapter 4): its name, access,
 * supertypes and generic signature, its fields and methods with theirs, the annotations on each, the nesting of
 * inner classes, the permitted subclasses of a sealed type, and, for {@code module-info.class}, its exports and
 * transitive requirements. Nothing is loaded or linked, so a module's classes are read without its dependencies.
 */
final class ClassApi {
    static final int PUBLIC = 0x0001;
    static final int PRIVATE = 0x0002;
    static final int PROTECTED = 0x0004;
    static final int STATIC = 0x0008;
    static final int FINAL = 0x0010;
    static final int BRIDGE = 0x0040;
    static final int VARARGS = 0x0080;
    static final int INTERFACE = 0x0200;
    static final int ABSTRACT = 0x0400;
    static final int SYNTHETIC = 0x1000;
    static final int ANNOTATION = 0x2000;
    static final int ENUM = 0x4000;
    static final int MODULE = 0x8000;

    /** A field or a method. */
    record Member(int access, String name, String descriptor, String signature, List<String> annotations,
                  List<String> exceptions) {
        boolean isMethod() {
            return descriptor.startsWith("(");
        }
    }

    /** An entry of the InnerClasses attribute: a nested type, its outer type (null for a local one), its access. */
    record Inner(String name, String outer, int access) {
    }

    /** A module's exports (unqualified ones only: a qualified export is no public API) and transitive requires. */
    record ModuleInfo(String name, List<String> exports, List<String> transitiveRequires) {
    }

    final String name;
    final int access;
    final String superName;
    final List<String> interfaces = new ArrayList<>();
    String signature;
    final List<String> annotations = new ArrayList<>();
    final List<Member> fields = new ArrayList<>();
    final List<Member> methods = new ArrayList<>();
    final Map<String, Inner> inners = new LinkedHashMap<>();
    final List<String> permitted = new ArrayList<>();
    ModuleInfo module;

    private final Object[] pool;

    private ClassApi(DataInputStream in) throws IOException {
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        pool = readPool(in);
        access = in.readUnsignedShort();
        name = className(in.readUnsignedShort());
        int superIndex = in.readUnsignedShort();
        superName = superIndex == 0 ? null : className(superIndex);
        for (int i = in.readUnsignedShort(); i > 0; i--) {
            interfaces.add(className(in.readUnsignedShort()));
        }
        readMembers(in, fields);
        readMembers(in, methods);
        for (int i = in.readUnsignedShort(); i > 0; i--) {
            String attribute = utf8(in.readUnsignedShort());
            byte[] body = in.readNBytes(in.readInt());
            DataInputStream a = new DataInputStream(new ByteArrayInputStream(body));
            switch (attribute) {
                case "Signature" -> signature = utf8(a.readUnsignedShort());
                case "RuntimeVisibleAnnotations", "RuntimeInvisibleAnnotations" -> readAnnotations(a, annotations);
                case "InnerClasses" -> {
                    for (int n = a.readUnsignedShort(); n > 0; n--) {
                        int inner = a.readUnsignedShort();
                        int outer = a.readUnsignedShort();
                        a.readUnsignedShort();
                        int flags = a.readUnsignedShort();
                        String innerName = className(inner);
                        inners.put(innerName, new Inner(innerName, outer == 0 ? null : className(outer), flags));
                    }
                }
                case "PermittedSubclasses" -> {
                    for (int n = a.readUnsignedShort(); n > 0; n--) {
                        permitted.add(className(a.readUnsignedShort()));
                    }
                }
                case "Module" -> module = readModule(a);
                default -> {
                    // not part of the API
                }
            }
        }
    }

    static ClassApi read(byte[] bytes) throws IOException {
        return new ClassApi(new DataInputStream(new ByteArrayInputStream(bytes)));
    }

    private Object[] readPool(DataInputStream in) throws IOException {
        int count = in.readUnsignedShort();
        Object[] p = new Object[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> p[i] = in.readUTF();
                case 3 -> p[i] = in.readInt();
                case 4 -> p[i] = in.readFloat();
                case 5 -> p[i++] = in.readLong();
                case 6 -> p[i++] = in.readDouble();
                case 7, 8, 16, 19, 20 -> p[i] = new int[] {tag, in.readUnsignedShort()};
                case 9, 10, 11, 12, 17, 18 -> {
                    in.readUnsignedShort();
                    in.readUnsignedShort();
                }
                case 15 -> {
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                }
                default -> throw new IOException("unknown constant pool tag " + tag);
            }
        }
        return p;
    }

    private String utf8(int index) {
        return (String) pool[index];
    }

    /** The name a Class, Module or Package constant points to. */
    private String className(int index) {
        return utf8(((int[]) pool[index])[1]);
    }

    private void readMembers(DataInputStream in, List<Member> out) throws IOException {
        for (int i = in.readUnsignedShort(); i > 0; i--) {
            int flags = in.readUnsignedShort();
            String memberName = utf8(in.readUnsignedShort());
            String descriptor = utf8(in.readUnsignedShort());
            String memberSignature = null;
            List<String> memberAnnotations = new ArrayList<>();
            List<String> exceptions = new ArrayList<>();
            for (int n = in.readUnsignedShort(); n > 0; n--) {
                String attribute = utf8(in.readUnsignedShort());
                byte[] body = in.readNBytes(in.readInt());
                DataInputStream a = new DataInputStream(new ByteArrayInputStream(body));
                switch (attribute) {
                    case "Signature" -> memberSignature = utf8(a.readUnsignedShort());
                    case "RuntimeVisibleAnnotations", "RuntimeInvisibleAnnotations" ->
                            readAnnotations(a, memberAnnotations);
                    case "Exceptions" -> {
                        for (int e = a.readUnsignedShort(); e > 0; e--) {
                            exceptions.add(className(a.readUnsignedShort()));
                        }
                    }
                    default -> {
                        // not part of the API
                    }
                }
            }
            out.add(new Member(flags, memberName, descriptor, memberSignature, memberAnnotations, exceptions));
        }
    }

    /** Each annotation as its type's descriptor and its elements: {@code Ljava/lang/Deprecated;(forRemoval=true)}. */
    private void readAnnotations(DataInputStream in, List<String> out) throws IOException {
        for (int n = in.readUnsignedShort(); n > 0; n--) {
            out.add(annotation(in));
        }
    }

    private String annotation(DataInputStream in) throws IOException {
        StringBuilder b = new StringBuilder(utf8(in.readUnsignedShort()));
        int pairs = in.readUnsignedShort();
        if (pairs > 0) {
            b.append('(');
            for (int i = 0; i < pairs; i++) {
                b.append(i == 0 ? "" : ", ").append(utf8(in.readUnsignedShort())).append('=').append(elementValue(in));
            }
            b.append(')');
        }
        return b.toString();
    }

    private String elementValue(DataInputStream in) throws IOException {
        char tag = (char) in.readUnsignedByte();
        return switch (tag) {
            case 's' -> '"' + utf8(in.readUnsignedShort()).replace("\\", "\\\\").replace("\"", "\\\"") + '"';
            case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z' -> {
                Object value = pool[in.readUnsignedShort()];
                yield tag == 'Z' ? String.valueOf(!Integer.valueOf(0).equals(value))
                        : tag == 'C' ? "'" + (char) (int) (Integer) value + "'" : String.valueOf(value);
            }
            case 'e' -> {
                String type = utf8(in.readUnsignedShort());
                yield type + "." + utf8(in.readUnsignedShort());
            }
            case 'c' -> utf8(in.readUnsignedShort()) + ".class";
            case '@' -> "@" + annotation(in);
            case '[' -> {
                StringBuilder b = new StringBuilder("{");
                for (int n = in.readUnsignedShort(), i = 0; i < n; i++) {
                    b.append(i == 0 ? "" : ", ").append(elementValue(in));
                }
                yield b.append('}').toString();
            }
            default -> throw new IOException("unknown annotation element tag " + tag);
        };
    }

    private ModuleInfo readModule(DataInputStream in) throws IOException {
        String moduleName = className(in.readUnsignedShort());
        in.readUnsignedShort();
        in.readUnsignedShort();
        List<String> transitive = new ArrayList<>();
        for (int n = in.readUnsignedShort(); n > 0; n--) {
            String required = className(in.readUnsignedShort());
            int flags = in.readUnsignedShort();
            in.readUnsignedShort();
            if ((flags & 0x0020) != 0) {
                transitive.add(required);
            }
        }
        List<String> exports = new ArrayList<>();
        for (int n = in.readUnsignedShort(); n > 0; n--) {
            String pkg = className(in.readUnsignedShort());
            in.readUnsignedShort();
            int to = in.readUnsignedShort();
            for (int t = 0; t < to; t++) {
                in.readUnsignedShort();
            }
            if (to == 0) {
                exports.add(pkg);
            }
        }
        return new ModuleInfo(moduleName, exports, transitive);
    }
}
