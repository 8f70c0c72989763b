/**
 * The drift report: a command-line tool ({@link dev.codexclient.drift.SchemaDrift}) that compares the app-server
 * protocol of a codex executable with the schema codex-client was generated from, and says whether the codex
 * lacks anything the client API relies on. Run it with {@code java -p DIR -m dev.codexclient.drift}.
 */
module dev.codexclient.drift {
    requires dev.codexclient.core;              // CodexVersion
    requires dev.codexclient.protocol;          // the method tables, for what the client API relies on
    requires com.fasterxml.jackson.databind;    // schemas are read and reports written as JSON trees

    exports dev.codexclient.drift;
}
