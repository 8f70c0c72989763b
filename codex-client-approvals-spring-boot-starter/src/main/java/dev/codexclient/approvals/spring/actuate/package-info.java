/** The inbox's health indicator on Spring Boot 3.5. */
package dev.codexclient.approvals.spring.actuate;
