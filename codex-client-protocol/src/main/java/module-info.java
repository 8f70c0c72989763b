/**
 * Typed records for every message of the codex app-server protocol, generated from the pinned JSON schema.
 */
module dev.codexclient.protocol {
    requires transitive com.fasterxml.jackson.databind;

    exports dev.codexclient.protocol;

    // Jackson reads and writes the records reflectively.
    opens dev.codexclient.protocol to com.fasterxml.jackson.databind;
}
