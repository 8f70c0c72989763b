package dev.codexclient

/** How many listeners [turn] delivers to: what a flow's subscription holds, for the tests (the client's package). */
fun turnListeners(turn: CodexTurn): Int = turn.listenerCount()
