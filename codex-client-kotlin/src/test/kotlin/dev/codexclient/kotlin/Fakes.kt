package dev.codexclient.kotlin

import dev.codexclient.CodexClient
import dev.codexclient.testkit.FakeCodexAppServer

/** A client of [fake], in memory, configured with the DSL and built as a user's coroutine would. */
suspend fun client(fake: FakeCodexAppServer, configure: CodexClientScope.() -> Unit = {}): CodexClient =
    CodexClient {
        transport(fake.connectInMemory())
        configure()
    }
