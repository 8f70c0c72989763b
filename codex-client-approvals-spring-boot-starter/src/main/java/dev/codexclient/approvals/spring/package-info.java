/** The approvals inbox in a Spring Boot application: auto-configuration, the REST API, the page, security, meters. */
package dev.codexclient.approvals.spring;
