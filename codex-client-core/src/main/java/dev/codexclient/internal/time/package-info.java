/**
 * Time for the client: the clock deadlines are measured on and the timer thread, shared by every client, that runs
 * delayed work. Tests swap in {@link dev.codexclient.internal.time.ManualScheduler}, whose time moves only when
 * told. Not exported.
 */
package dev.codexclient.internal.time;
