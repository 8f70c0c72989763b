package dev.codexclient.generator;

import dev.codexclient.generator.Model.Field;
import dev.codexclient.generator.Model.Named;
import dev.codexclient.generator.Model.RecordDecl;
import dev.codexclient.generator.Model.Str;
import dev.codexclient.generator.Model.TaggedDecl;
import dev.codexclient.generator.Model.TaggedVariant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Where each notification's params name the thread and the turn it belongs to, so that the generated
 * {@code threadId()} and {@code turnId()} read them with plain accessor calls. A client routes every notification by
 * them; reading them from the typed params needs neither a tree nor reflection.
 *
 * <p>The rule is the protocol's: the {@code threadId} member, else the {@code id} of the {@code thread} object (and
 * the same for {@code turn}). Only members the schema declares count: a member a newer server adds is unknown data.
 */
final class Routing {
    private Routing() {
    }

    /**
     * The accessors of one id: {@code member} reads {@code xId} from the params, {@code object} reads the {@code x}
     * object whose {@code id()} is the id; either may be null, not both.
     */
    record Route(String member, String object) {
    }

    /** The thread and turn routes of one variant; either may be null when the params name no such id. */
    record Routes(Route thread, Route turn) {
    }

    /**
     * The routes of every variant of a notification union whose params name a thread or a turn, by variant name.
     *
     * @param records the record declaration of a schema name, or null when it is not a record
     */
    static Map<String, Routes> of(TaggedDecl d, Function<String, RecordDecl> records) {
        Map<String, Routes> out = new LinkedHashMap<>();
        for (TaggedVariant v : d.variants()) {
            if (v.method() == null || v.method().paramsType() == null) {
                continue;
            }
            RecordDecl params = records.apply(v.method().paramsType());
            if (params == null) {
                continue;
            }
            Route thread = route(params, "threadId", "thread", records);
            Route turn = route(params, "turnId", "turn", records);
            if (thread != null || turn != null) {
                out.put(v.name(), new Routes(thread, turn));
            }
        }
        return out;
    }

    private static Route route(RecordDecl params, String idMember, String objectMember,
                               Function<String, RecordDecl> records) {
        String member = null;
        String object = null;
        for (Field f : params.fields()) {
            if (f.anySetter()) {
                continue;
            }
            if (f.wire().equals(idMember) && f.ty() instanceof Str) {
                member = f.name();
            } else if (f.wire().equals(objectMember) && f.ty() instanceof Named n
                    && hasTextId(records.apply(n.name()))) {
                object = f.name();
            }
        }
        return member == null && object == null ? null : new Route(member, object);
    }

    private static boolean hasTextId(RecordDecl r) {
        return r != null && r.fields().stream().anyMatch(f -> f.wire().equals("id") && f.ty() instanceof Str
                && !f.anySetter());
    }
}
